import { describe, expect, it } from "vitest";
import { CREATED_AT, desired, live } from "../../../test/builders/plan.ts";
import type { DesiredRecords, RecordFieldValue } from "../../manifest/kinds/record.ts";
import type { LiveRecordField, LiveRecordLevel } from "../../state/kinds/record.ts";
import type { RecordFiles } from "../../state/kinds/record-attachments.ts";
import type { RecordPrincipals } from "../../state/kinds/record-principals.ts";
import { FieldType } from "../../wire/index.ts";
import { planChanges } from "../plan-changes.ts";
import { resolve } from "./record-values.ts";

/*
 * Each field type's resolution of a written value against a live one: what the step sends, whether
 * the live value already is it, the live value as the plan shows it, and the refusals.
 */

const PRINCIPALS: RecordPrincipals = {
  users: [
    { id: 5, name: "anguyen" },
    { id: 6, name: "bokafor" },
  ],
  groups: [
    { id: 42, name: "Risk Owners" },
    { id: 43, name: "Auditors" },
  ],
};

const field = (type: number, name = "Owner"): LiveRecordField => ({
  id: 106,
  name,
  alias: name,
  type,
  values: [],
});

describe("a users/groups field", () => {
  const owner = field(FieldType.UsersGroups);
  const at = (value: RecordFieldValue, current: unknown = null) =>
    resolve(owner, value, current, { principals: PRINCIPALS });

  it("sends the users' and groups' ids and shows the live value by name", () => {
    expect(
      at({ users: ["anguyen"], groups: ["Risk Owners"] }, { UserList: [{ Id: 6 }], GroupList: [] }),
    ).toEqual({
      wire: { UserList: [{ Id: 5 }], GroupList: [{ Id: 42 }] },
      same: false,
      before: { users: ["bokafor"] },
    });
  });

  it("compares as sets of ids, in any order, a name differing only in case being the same user", () => {
    const current = { UserList: [{ Id: 6 }, { Id: 5 }], GroupList: [{ Id: 43 }] };
    expect(at({ users: ["ANguyen", "bokafor"], groups: ["Auditors"] }, current)).toMatchObject({
      same: true,
    });
    expect(at({ users: ["anguyen"] }, current)).toMatchObject({ same: false });
  });

  it("clears the field with null or two empty lists", () => {
    expect(at(null, { UserList: [{ Id: 5 }], GroupList: [] })).toMatchObject({ wire: null, same: false });
    expect(at({ users: [] }, null)).toMatchObject({ wire: null, same: true, before: null });
  });

  it("refuses an unknown user or group name with the closest one, and a value of another form", () => {
    expect(at({ users: ["anguyn"] })).toEqual({
      problem: "unresolved",
      message: 'no user "anguyn" on the instance (for "Owner"); did you mean "anguyen"?',
    });
    expect(at({ groups: ["Risk Owner"] })).toEqual({
      problem: "unresolved",
      message: 'no group "Risk Owner" on the instance (for "Owner"); did you mean "Risk Owners"?',
    });
    expect(at("anguyen")).toMatchObject({ problem: "invalid" });
    expect(at({ user: ["anguyen"] })).toMatchObject({ problem: "invalid", message: /not "user"/ });
    expect(
      resolve(owner, { groups: ["Auditors"] }, null, { principals: { ...PRINCIPALS, groups: null } }),
    ).toMatchObject({ problem: "invalid", message: /does not answer the group read/ });
  });

  it("plans by name and steps by id, refusing an unknown name at its position", () => {
    const level: LiveRecordLevel = {
      application: "Third Parties",
      levelId: 7,
      levelName: "Third Party",
      entitySet: "Third_Party",
      fields: [field(FieldType.Text, "Vendor Name"), { ...owner, id: 107 }],
      records: [
        { id: 1001, values: { "Vendor Name": "Acme", Owner: { UserList: [{ Id: 6 }], GroupList: [] } } },
      ],
    };
    const document = (value: RecordFieldValue): DesiredRecords => ({
      kind: "Record",
      application: "Third Parties",
      key: ["Vendor Name"],
      records: [
        {
          key: ["Acme"],
          values: { "Vendor Name": "Acme", Owner: value },
          source: { file: "manifests/tp.yaml", line: 5, column: 18, path: "records[0]" },
          fields: { Owner: { file: "manifests/tp.yaml", line: 6, column: 12, path: "records[0].Owner" } },
        },
      ],
      source: { file: "manifests/tp.yaml", line: 2, column: 14 },
    });
    const planOf = (value: RecordFieldValue) =>
      planChanges(
        desired({ records: [document(value)] }),
        live({ records: [level], principals: PRINCIPALS } as never),
        { createdAt: CREATED_AT },
      );
    const plan = planOf({ users: ["anguyen"], groups: ["Risk Owners"] });
    expect(plan.changes[0]?.fields.map((f) => [f.field, f.before, f.after])).toEqual([
      ["Owner", { users: ["bokafor"] }, { users: ["anguyen"], groups: ["Risk Owners"] }],
    ]);
    expect(plan.steps[0]?.input).toMatchObject({
      fields: [{ fieldId: 107, type: 8, value: { UserList: [{ Id: 5 }], GroupList: [{ Id: 42 }] } }],
    });
    expect(() => planOf({ users: ["nobody"] })).toThrow(
      expect.objectContaining({ code: "EGP_RECORD_REF_UNRESOLVED" }),
    );
    expect(() => planOf({ users: ["nobody"] })).toThrow(/^manifests\/tp\.yaml:6:12 .*no user "nobody"/);
  });
});

describe("an external links field", () => {
  const website = field(FieldType.ExternalLinks, "Website");
  const live = [
    { Name: "Acme", URL: "https://acme.example" },
    { Name: "https://status.acme.example", URL: "https://status.acme.example" },
  ];

  it("sends Name and URL, a link without a name named by its url, and compares as a set", () => {
    const written = [{ url: "https://status.acme.example" }, { name: "Acme", url: "https://acme.example" }];
    expect(resolve(website, written, live)).toEqual({
      wire: [
        { Name: "https://status.acme.example", URL: "https://status.acme.example" },
        { Name: "Acme", URL: "https://acme.example" },
      ],
      same: true,
      before: [
        { name: "Acme", url: "https://acme.example" },
        { name: "https://status.acme.example", url: "https://status.acme.example" },
      ],
    });
  });

  it("differs when a name or a url differs, and clears with null", () => {
    expect(resolve(website, [{ name: "Acme Inc", url: "https://acme.example" }], live)).toMatchObject({
      same: false,
    });
    expect(resolve(website, null, live)).toMatchObject({ wire: null, same: false });
    expect(resolve(website, [], null)).toMatchObject({ wire: null, same: true, before: null });
  });

  it("refuses a url that is not absolute, a key it does not know, and another form", () => {
    expect(resolve(website, [{ name: "Acme", url: "acme.example" }], null)).toMatchObject({
      problem: "invalid",
      message: /item 0's url must be an absolute URL/,
    });
    expect(resolve(website, [{ name: "Acme", href: "https://acme.example" }], null)).toMatchObject({
      problem: "invalid",
      message: /item 0 has "href"/,
    });
    expect(resolve(website, "https://acme.example", null)).toMatchObject({ problem: "invalid" });
  });
});

describe("an IP address field", () => {
  const egress = field(FieldType.IpAddress, "Egress IP Address");

  it("sends the address as written and compares IPv6 addresses in their canonical form", () => {
    expect(resolve(egress, "203.0.113.10", "203.0.113.10")).toEqual({
      wire: "203.0.113.10",
      same: true,
      before: "203.0.113.10",
    });
    expect(resolve(egress, "203.0.113.11", "203.0.113.10")).toMatchObject({ same: false });
    expect(resolve(egress, "2001:db8::1", "2001:0DB8:0:0:0:0:0:1")).toMatchObject({ same: true });
    expect(resolve(egress, null, "203.0.113.10")).toMatchObject({ wire: null, same: false });
  });

  it("refuses what is not an IPv4 or IPv6 address", () => {
    for (const bad of ["203.0.113.256", "203.0.113", "010.0.0.1", "2001:db8::1::2", "example.com", 42]) {
      expect(resolve(egress, bad, null)).toMatchObject({
        problem: "invalid",
        message: /^an IP address field takes an IPv4 or IPv6 address/,
      });
    }
  });
});

describe("an attachment field", () => {
  const documents = field(FieldType.Attachment, "Supporting Documents");
  const sha = (c: string) => c.repeat(64);
  const files: RecordFiles = {
    files: {
      "manifests/risks.yaml": {
        "files/plan.txt": { path: "manifests/files/plan.txt", name: "plan.txt", sha256: sha("a"), bytes: 4 },
        "files/new.txt": { path: "manifests/files/new.txt", name: "new.txt", sha256: sha("b"), bytes: 4 },
        "files/gone.txt": { path: "manifests/files/gone.txt", problem: "missing" },
      },
    },
    attachments: { "31": { name: "call-tree.txt", sha256: sha("a") } },
  };
  const context = { files, manifest: "manifests/risks.yaml" };

  it("compares by sha256, whatever the names, and shows the live attachments by name", () => {
    expect(resolve(documents, ["files/plan.txt"], [31], context)).toEqual({
      wire: { Attachments: [{ id: 31 }] },
      same: true,
      before: ["call-tree.txt"],
    });
  });

  it("keeps a live attachment whose bytes a file has and names the others for upload", () => {
    expect(resolve(documents, ["files/new.txt", "files/plan.txt"], [31], context)).toEqual({
      wire: {
        Attachments: [{ path: "manifests/files/new.txt", name: "new.txt", sha256: sha("b") }, { id: 31 }],
      },
      same: false,
      before: ["call-tree.txt"],
    });
    expect(resolve(documents, ["files/new.txt"], [31], context)).toMatchObject({ same: false });
    expect(resolve(documents, null, [31], context)).toMatchObject({ wire: null, same: false });
  });

  it("shows live attachments it did not read by their count", () => {
    expect(resolve(documents, ["files/plan.txt"], [31, 32], context)).toMatchObject({
      same: false,
      before: "(2 attachments)",
    });
  });

  it("refuses a file the repository lacks, naming its path, and another form", () => {
    expect(resolve(documents, ["files/gone.txt"], null, context)).toEqual({
      problem: "invalid",
      message:
        '"Supporting Documents": files/gone.txt: no such file in the repository (manifests/files/gone.txt)',
    });
    expect(resolve(documents, [{ path: "x" }], null, context)).toMatchObject({ problem: "invalid" });
  });
});

describe("a sub-form field", () => {
  const comments: LiveRecordField = { ...field(FieldType.SubForm, "Comments"), id: 120, subform: 9 };
  const text = { ...field(FieldType.Text, "Comment Text"), id: 901, alias: "Comment_Text" };
  const by = { ...field(FieldType.UsersGroups, "Commented By"), id: 902, alias: "Commented_By" };
  const subforms = {
    "9": {
      levelId: 90,
      entitySet: "Comment",
      fields: [text, by],
      rows: {
        "7001": { Comment_Text: "Failover planned", Commented_By: { UserList: [{ Id: 5 }], GroupList: [] } },
        "7002": { Comment_Text: "Tested", Commented_By: null },
      },
    },
  };
  const context = { principals: PRINCIPALS, subforms };

  it("matches rows as a set by the values each row gives, whatever their order", () => {
    const rows = [
      { "Comment Text": "Tested" },
      { "Comment Text": "Failover planned", "Commented By": { users: ["anguyen"] } },
    ];
    expect(resolve(comments, rows, [7001, 7002], context)).toEqual({
      wire: { SubformFieldId: 120, Rows: [{ id: 7002 }, { id: 7001 }] },
      same: true,
      before: [
        { "Comment Text": "Failover planned", "Commented By": { users: ["anguyen"] } },
        { "Comment Text": "Tested" },
      ],
    });
  });

  it("keeps the rows that match, creates the others with their fields by id, and drops the live rows left over", () => {
    const rows = [
      { "Comment Text": "Tested" },
      { "Comment Text": "Retested", "Commented By": { users: ["bokafor"] } },
    ];
    expect(resolve(comments, rows, [7001, 7002], context)).toMatchObject({
      wire: {
        SubformFieldId: 120,
        Rows: [
          { id: 7002 },
          {
            levelId: 90,
            fields: [
              { fieldId: 901, type: 1, value: "Retested" },
              { fieldId: 902, type: 8, value: { UserList: [{ Id: 6 }], GroupList: [] } },
            ],
          },
        ],
      },
      same: false,
    });
    expect(resolve(comments, [{ "Comment Text": "Tested" }], [7001, 7002], context)).toMatchObject({
      wire: { Rows: [{ id: 7002 }] },
      same: false,
    });
    expect(resolve(comments, null, [7001], context)).toMatchObject({ wire: null, same: false });
  });

  it("refuses a row's field the sub-form lacks, an unknown name in a row, and another form", () => {
    expect(resolve(comments, [{ "Comment Txt": "x" }], [], context)).toMatchObject({
      problem: "invalid",
      message: 'the sub-form of "Comments" has no field "Comment Txt" (row 0); did you mean "Comment Text"?',
    });
    expect(resolve(comments, [{ "Commented By": { users: ["nobody"] } }], [7001], context)).toMatchObject({
      problem: "unresolved",
    });
    expect(resolve(comments, "Tested", [], context)).toMatchObject({ problem: "invalid" });
  });
});
