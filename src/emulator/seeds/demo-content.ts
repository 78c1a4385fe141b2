import { JobStatus } from "../../wire/index.ts";
import { type Catalogue, catalogueOf } from "../catalogue/model.ts";
import { addAttachment } from "../content/attachment-store.ts";
import { Keyring, keyFromEnvironment } from "../content/cipher.ts";
import { contentOf, recordOf, type WorkflowRecord } from "../content/model.ts";
import { createRecord, updateRecord } from "../content/write-record.ts";
import type { Store } from "../store.ts";
import { demoGuid } from "./demo-catalogue.ts";
import { FIXED } from "./fixed.ts";

/*
 * Demo content: records in the Risk Register, Controls, Policies, Third Parties, the vendor
 * assessment questionnaire, the Comments sub-form and (dev only, as the application is) Findings;
 * three attachments, one of them sensitive; history-log fields on Risk and Finding; workflows on
 * Risk and Finding with records at several nodes. Records go through the same checks as a POST,
 * so the seed can't hold content the interface would refuse.
 *
 * Content ids start at 1001 on both instances, in the same order for the first four, which the
 * demo users' tasks name as their targets (1001 Acme Hosting, 1002 a risk, 1003 and 1004 controls).
 */

type Variant = "dev" | "prod";

interface Seeding {
  store: Store;
  catalogue: Catalogue;
  keyring: Keyring;
  variant: Variant;
}

type Entries = Array<[string, unknown]>;

function fieldOf(s: Seeding, path: string) {
  const field = s.catalogue.byGuid("fields", demoGuid(path));
  if (!field) throw new Error(`demo content: no field ${path}`);
  return field;
}

function levelId(s: Seeding, path: string): number {
  const level = s.catalogue.byGuid("levels", demoGuid(path));
  if (!level) throw new Error(`demo content: no level ${path}`);
  return level.Id;
}

function choose(s: Seeding, path: string, ...names: string[]) {
  const field = fieldOf(s, path);
  const ids = names.map((name) => {
    const value = field.ValuesListValues.find((v) => v.Name === name);
    if (!value) throw new Error(`demo content: ${path} has no value ${name}`);
    return value.Id;
  });
  return { ValuesListIds: ids, OtherText: null };
}

function namedId(records: Record<string, { Id: number; Name: string }>, name: string): number {
  const found = Object.values(records).find((r) => r.Name === name);
  if (!found) throw new Error(`demo content: no ${name}`);
  return found.Id;
}

function people(s: Seeding, userNames: string[], groupNames: string[] = []) {
  return {
    UserList: userNames.flatMap((name) => {
      const record = s.store.userByName(name);
      return record ? [{ Id: record.user.Id }] : [];
    }),
    GroupList: groupNames.map((name) => ({ Id: namedId(s.store.data.groups, name) })),
  };
}

function contentsOf(s: Seeding, levelPath: string, entries: Entries) {
  return Object.fromEntries(
    entries.map(([key, value]) => {
      const field = fieldOf(s, `${levelPath}/${key}`);
      return [String(field.Id), { Type: field.Type, FieldId: field.Id, Value: value }];
    }),
  );
}

function create(
  s: Seeding,
  levelPath: string,
  entries: Entries,
  subformFieldId: number | null = null,
): number {
  return createRecord(s.store, FIXED.adminUserId, {
    id: null,
    levelId: levelId(s, levelPath),
    fieldContents: contentsOf(s, levelPath, entries),
    subformFieldId,
  }).Id;
}

function update(
  s: Seeding,
  id: number,
  levelPath: string,
  entries: Entries,
  userName: string = FIXED.adminUserName,
) {
  const record = recordOf(contentOf(s.store), id);
  const user = s.store.userByName(userName);
  if (!record || !user) throw new Error(`demo content: cannot update ${id} as ${userName}`);
  updateRecord(s.store, user.user.Id, record, {
    id,
    levelId: record.LevelId,
    fieldContents: contentsOf(s, levelPath, entries),
    subformFieldId: null,
  });
}

function attach(s: Seeding, name: string, text: string | Buffer, sensitive = false): number {
  const bytes = typeof text === "string" ? Buffer.from(text, "utf8") : text;
  return addAttachment(s.store, s.keyring, {
    name,
    bytes,
    sensitive,
    contentType: null,
    ownerId: FIXED.adminUserId,
  }).Id;
}

/** A 1×1 PNG, for the vendor's logo (type 12). */
const LOGO = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

/** The sensitive demo file: contents that must never reach the snapshot in plain text. */
export const DEMO_SENSITIVE_TEXT =
  "Business continuity call tree (CONFIDENTIAL)\nIncident commander: +1 555 0199\nCloud escalation PIN: 4471-2290\n";

function historyLogs(s: Seeding): void {
  const content = contentOf(s.store);
  const logs: Array<[string, string, string[]]> = [
    ["risks/risk", "Assessment History", ["likelihood", "impact", "score"]],
    ["risks/risk", "Treatment History", ["controls"]],
  ];
  if (s.variant === "dev") logs.push(["findings/finding", "Status History", ["severity", "due", "owner"]]);
  for (const [level, name, fields] of logs) {
    const id = s.catalogue.nextId("fields");
    content.historyFields[String(id)] = {
      Id: id,
      LevelId: levelId(s, level),
      Name: name,
      TrackedFieldIds: fields.map((key) => fieldOf(s, `${level}/${key}`).Id),
    };
  }
}

function workflows(s: Seeding): void {
  const content = contentOf(s.store);
  const riskManager = namedId(s.store.data.roles, "Risk Manager");
  const auditor = namedId(s.store.data.roles, "Auditor");
  const risk: WorkflowRecord = {
    LevelId: levelId(s, "risks/risk"),
    Name: "Risk Review",
    StartNodeId: "201",
    Nodes: [
      {
        Id: "201",
        Name: "Draft",
        JobStatus: JobStatus.Active,
        Transitions: [
          { Id: "2011", Name: "Submit for Review", CompletionCode: 1, ToNodeId: "202", RoleIds: [] },
        ],
      },
      {
        Id: "202",
        Name: "Review",
        JobStatus: JobStatus.Active,
        Transitions: [
          { Id: "2021", Name: "Approve", CompletionCode: 1, ToNodeId: "203", RoleIds: [riskManager] },
          { Id: "2022", Name: "Reject", CompletionCode: 2, ToNodeId: "201", RoleIds: [riskManager] },
          { Id: "2023", Name: "Request Information", CompletionCode: 3, ToNodeId: "201", RoleIds: [] },
        ],
      },
      { Id: "203", Name: "Approved", JobStatus: JobStatus.Completed, Transitions: [] },
    ],
  };
  content.workflows[String(risk.LevelId)] = risk;
  if (s.variant !== "dev") return;
  const finding: WorkflowRecord = {
    LevelId: levelId(s, "findings/finding"),
    Name: "Remediation",
    StartNodeId: "301",
    Nodes: [
      {
        Id: "301",
        Name: "Open",
        JobStatus: JobStatus.Active,
        Transitions: [
          { Id: "3011", Name: "Start Remediation", CompletionCode: 1, ToNodeId: "302", RoleIds: [] },
        ],
      },
      {
        Id: "302",
        Name: "In Remediation",
        JobStatus: JobStatus.Active,
        Transitions: [
          { Id: "3021", Name: "Submit Evidence", CompletionCode: 1, ToNodeId: "303", RoleIds: [] },
        ],
      },
      {
        Id: "303",
        Name: "Validation",
        JobStatus: JobStatus.Active,
        Transitions: [
          { Id: "3031", Name: "Close", CompletionCode: 1, ToNodeId: "304", RoleIds: [auditor] },
          { Id: "3032", Name: "Reopen", CompletionCode: 2, ToNodeId: "302", RoleIds: [auditor] },
        ],
      },
      { Id: "304", Name: "Closed", JobStatus: JobStatus.Completed, Transitions: [] },
    ],
  };
  content.workflows[String(finding.LevelId)] = finding;
}

/** Moves a record's job, as a user acting in the interface would have. */
function moveJob(s: Seeding, id: number, nodeId: string): void {
  const record = recordOf(contentOf(s.store), id);
  const workflow = record ? contentOf(s.store).workflows[String(record.LevelId)] : undefined;
  const node = workflow?.Nodes.find((n) => n.Id === nodeId);
  if (!record || !node) throw new Error(`demo content: no node ${nodeId} for ${id}`);
  record.Workflow = { NodeId: node.Id, JobStatus: node.JobStatus };
}

function records(s: Seeding): void {
  const dev = s.variant === "dev";
  const controlOwner = dev ? "bokafor" : "ejohansson";
  const logo = attach(s, "acme-logo.png", LOGO);
  const callTree = attach(s, "bcp-call-tree.txt", DEMO_SENSITIVE_TEXT, true);

  const acme = create(s, "vendors/vendor", [
    ["name", "Acme Hosting"],
    ["tier", choose(s, "vendors/vendor/tier", "Tier 1")],
    ["website", [{ Name: "Acme Hosting", URL: "https://acme-hosting.example.com" }]],
    ["ip-range", "203.0.113.10"],
    ["logo", [logo]],
    ["owner", people(s, ["anguyen"])],
    ["contract-end", "2027-06-30"],
  ]);
  const outage = create(s, "risks/risk", [
    ["name", "Cloud provider outage"],
    ["description", "Loss of the primary hosting region for more than four hours."],
    ["category", choose(s, "risks/risk/category", "Technology")],
    ["likelihood", choose(s, "risks/risk/likelihood", "Unlikely")],
    ["impact", choose(s, "risks/risk/impact", "Major")],
    ["score", 12],
    ["owner", people(s, ["anguyen"], ["Risk Owners"])],
    ["identified", "2026-01-12"],
    ["documents", [callTree]],
  ]);
  const accessReview = create(s, "controls/control", [
    ["name", "Quarterly user access review"],
    ["objective", "Access rights match job roles."],
    ["type", choose(s, "controls/control/type", "Detective")],
    ["frequency", choose(s, "controls/control/frequency", "Quarterly")],
    ["owner", people(s, [controlOwner])],
    ["mitigates", [outage]],
    ...(dev
      ? ([
          ["last-tested", "2025-12-15"],
          ["test-result", choose(s, "controls/control/test-result", "Effective")],
        ] as Entries)
      : ([["legacy-id", "CTL-0042"]] as Entries)),
  ]);
  const accountManagement = create(s, "controls/control", [
    ["name", "AC-2 Account management"],
    ["objective", "Accounts are approved, reviewed and removed on time."],
    ["type", choose(s, "controls/control/type", "Preventive")],
    ["frequency", choose(s, "controls/control/frequency", "Monthly")],
    ["owner", people(s, [controlOwner], ["Auditors"])],
  ]);
  const policy = create(s, "policies/policy", [
    ["name", "Information Security Policy"],
    ["status", choose(s, "policies/policy/status", "Approved")],
    ["version", 3],
    ["effective", "2025-07-01"],
    ["owner", people(s, ["ejohansson"])],
    ["url", [{ Name: "Intranet copy", URL: "https://intranet.example.com/policies/infosec" }]],
  ]);
  const sections = [
    ["1", "Access Control"],
    ["2", "Acceptable Use"],
  ].map(([number, title]) =>
    create(s, "policies/section", [
      ["number", Number(number)],
      ["title", title],
      ["text", `${title} requirements.`],
    ]),
  );
  update(s, policy, "policies/policy", [["sections", sections]]);
  update(s, accountManagement, "controls/control", [["policies", [policy]]]);

  const privileged = create(s, "risks/risk", [
    ["name", "Privileged access misuse"],
    ["category", choose(s, "risks/risk/category", "Compliance")],
    ["likelihood", choose(s, "risks/risk/likelihood", "Unlikely")],
    ["impact", choose(s, "risks/risk/impact", "Severe")],
    ["score", 10],
    ["owner", people(s, ["ejohansson"])],
    ["identified", "2025-11-03"],
    ["controls", [accountManagement]],
  ]);
  moveJob(s, privileged, "203");

  // A comment on the outage risk (sub-form content, saved with its SubformFieldId), then the risk
  // re-assessed by its owner: history and a job waiting for review.
  const comments = fieldOf(s, "risks/risk/comments");
  const comment = create(
    s,
    "comments/comment",
    [
      ["text", "Failover test planned for Q2 with the hosting team."],
      ["by", people(s, ["anguyen"])],
      ["date", "2026-01-20"],
    ],
    comments.Id,
  );
  update(
    s,
    outage,
    "risks/risk",
    [
      ["likelihood", choose(s, "risks/risk/likelihood", "Possible")],
      ["score", 16],
      ["controls", [accessReview]],
      ["comments", [comment]],
    ],
    "anguyen",
  );
  moveJob(s, outage, "202");

  create(s, "vendor-assessment/assessment", [
    ["target", [acme]],
    ["data-access", choose(s, "vendor-assessment/assessment/data-access", "Confidential")],
    ["soc2", choose(s, "vendor-assessment/assessment/soc2", "Yes")],
    ["contact", "security@acme-hosting.example.com"],
    [
      "matrix",
      [
        { Row: "Encryption at rest", Column: "Implemented" },
        { Row: "Multi-factor authentication", Column: "Planned" },
      ],
    ],
    ["score", 12],
    ["submitted", "2026-01-28T15:30:00Z"],
  ]);
  create(s, "vendors/vendor", [
    ["name", "Northwind Analytics"],
    ["tier", choose(s, "vendors/vendor/tier", "Tier 2")],
    ["ip-range", "2001:db8::42"],
  ]);
  if (dev) findings(s, accountManagement, outage);
}

function findings(s: Seeding, control: number, risk: number): void {
  const evidence = attach(s, "vpn-access-sample.csv", "user,terminated,vpn_active\njdoe,2025-12-01,true\n");
  const vpn = create(s, "findings/finding", [
    ["title", "Terminated users retain VPN access"],
    ["severity", choose(s, "findings/finding/severity", "High")],
    ["source", choose(s, "findings/finding/source", "Internal Audit")],
    ["identified", "2026-01-20"],
    ["due", "2026-03-31"],
    ["owner", people(s, ["bokafor"])],
    ["control", [control]],
    ["related", [risk, control]],
    ["evidence", [evidence]],
  ]);
  moveJob(s, vpn, "302");
  create(s, "findings/finding", [
    ["title", "Vendor SOC 2 report outdated"],
    ["severity", choose(s, "findings/finding/severity", "Medium")],
    ["source", choose(s, "findings/finding/source", "Self-Assessment")],
    ["identified", "2026-02-01"],
    ["owner", people(s, ["gmorales"])],
  ]);
}

export function seedDemoContent(store: Store, variant: Variant): void {
  const s: Seeding = {
    store,
    catalogue: catalogueOf(store),
    keyring: new Keyring(store, keyFromEnvironment()),
    variant,
  };
  store.data.counters.content = Math.max(store.data.counters.content ?? 0, 1000);
  historyLogs(s);
  workflows(s);
  records(s);
}
