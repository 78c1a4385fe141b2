import { EventActionType as Act, FieldType as T } from "../../wire/index.ts";
import { buildCatalogue, type CatalogueSpec, type FieldSpec, type ModuleSpec } from "../catalogue/build.ts";
import { guidFor } from "../catalogue/guid.ts";
import { catalogueOf } from "../catalogue/model.ts";
import type { Store } from "../store.ts";

/*
 * The demo catalogue: a small governance programme. demo-dev holds the current version; demo-prod
 * the same catalogue, older, so that there is something to promote:
 * - Findings does not exist on prod;
 * - Controls on prod lacks the two testing fields (and their rule), still has a legacy field that
 *   dev dropped, and has an older layout;
 * - the Risk Register's escalation rule has a different threshold;
 * - prod has no translations yet.
 * GUIDs are the same on both (derived from the key paths); ids differ, and prod numbers its objects
 * from other offsets and in another order, so that only GUIDs match objects across the two.
 */

const FRENCH = 2;
const NAMESPACE = "egp-demo";

/** The GUID of a demo object by key path, e.g. `risks`, `risks/risk/score`, `report/open-high-risks`. */
export function demoGuid(path: string): string {
  return guidFor(`${NAMESPACE}:${path}`);
}

function field(
  key: string,
  name: string,
  type: FieldSpec["type"],
  extra: Partial<FieldSpec> = {},
): FieldSpec {
  return { key, name, type, ...extra };
}

const comments: ModuleSpec = {
  key: "comments",
  type: "SubForm",
  name: "Comments",
  description: "Threaded comments, used as a sub-form by several applications.",
  levels: [
    {
      key: "comment",
      name: "Comment",
      fields: [
        field("text", "Comment Text", T.Text, { required: true }),
        field("by", "Commented By", T.UsersGroups),
        field("date", "Comment Date", T.Date),
      ],
      layout: { name: "Comment Layout", sections: [{ name: "Comment", fields: ["text", "by", "date"] }] },
      rules: [
        {
          key: "author",
          name: "Comment needs an author",
          condition: "Comment_Text is not empty",
          fields: ["text"],
          actions: [{ key: "require-by", name: "Require author", type: Act.RequireFields, targets: ["by"] }],
        },
      ],
    },
  ],
};

const policies: ModuleSpec = {
  key: "policies",
  type: "Application",
  name: "Policies",
  description: "<p>Corporate policies and their sections.</p>",
  keepLicensed: true,
  levels: [
    {
      key: "policy",
      name: "Policy",
      fields: [
        field("name", "Policy Name", T.Text, { required: true }),
        field("text", "Policy Text", T.Text),
        field("version", "Version", T.Numeric),
        field("status", "Status", T.ValuesList, { values: ["Draft", "In Review", "Approved", "Retired"] }),
        field("effective", "Effective Date", T.Date),
        field("owner", "Policy Owner", T.UsersGroups),
        field("url", "Reference URL", T.ExternalLinks),
        field("sections", "Sections", T.RelatedRecords, { references: ["policies/section"] }),
      ],
      layout: {
        name: "Policy Layout",
        sections: [
          { name: "General", fields: ["name", "status", "version", "effective", "owner"] },
          { name: "Content", fields: ["text", "url", "sections"] },
        ],
      },
      rules: [
        {
          key: "approved",
          name: "Approved policy needs an effective date",
          condition: "Status = Approved",
          fields: ["status"],
          actions: [
            {
              key: "require-effective",
              name: "Require effective date",
              type: Act.RequireFields,
              targets: ["effective"],
            },
          ],
        },
      ],
    },
    {
      key: "section",
      name: "Policy Section",
      fields: [
        field("title", "Section Title", T.Text, { required: true }),
        field("number", "Section Number", T.Numeric),
        field("text", "Section Text", T.Text),
      ],
      layout: {
        name: "Section Layout",
        sections: [{ name: "Section", fields: ["number", "title", "text"] }],
      },
      rules: [
        {
          key: "numbered",
          name: "Unnumbered section",
          condition: "Section_Number is empty",
          fields: ["number"],
          actions: [{ key: "number", name: "Number the section", type: Act.SetValue, targets: ["number"] }],
        },
      ],
    },
  ],
};

function controls(variant: "dev" | "prod"): ModuleSpec {
  const testing = variant === "dev";
  return {
    key: "controls",
    type: "Application",
    name: "Controls",
    description: "<p>Internal controls that mitigate risks.</p>",
    keepLicensed: true,
    levels: [
      {
        key: "control",
        name: "Control",
        fields: [
          field("name", "Control Name", T.Text, { required: true }),
          field("objective", "Control Objective", T.Text),
          field("type", "Control Type", T.ValuesList, { values: ["Preventive", "Detective", "Corrective"] }),
          field("frequency", "Frequency", T.ValuesList, {
            values: ["Daily", "Weekly", "Monthly", "Quarterly", "Annually"],
          }),
          field("owner", "Control Owner", T.UsersGroups),
          ...(testing
            ? [
                field("last-tested", "Last Tested", T.Date),
                field("test-result", "Test Result", T.ValuesList, {
                  values: ["Effective", "Partially Effective", "Ineffective"],
                }),
              ]
            : [field("legacy-id", "Legacy Control ID", T.Text)]),
          field("mitigates", "Mitigated Risks", T.RelatedRecords, { references: ["risks/risk"] }),
          field("policies", "Policies", T.CrossReference, { references: ["policies/policy"] }),
          field("comments", "Comments", T.SubForm, { subform: "comments" }),
        ],
        layout: testing
          ? {
              name: "Control Layout",
              sections: [
                { name: "General", fields: ["name", "objective", "type", "frequency", "owner"] },
                { name: "Testing", fields: ["last-tested", "test-result"] },
                { name: "Relationships", fields: ["mitigates", "policies"] },
                { name: "Discussion", fields: ["comments"] },
              ],
            }
          : {
              name: "Control Layout",
              sections: [
                { name: "General", fields: ["name", "legacy-id", "objective", "type", "owner", "frequency"] },
                { name: "Relationships", fields: ["policies", "mitigates", "comments"] },
              ],
            },
        rules: testing
          ? [
              {
                key: "ineffective",
                name: "Ineffective control",
                condition: "Test_Result = Ineffective",
                fields: ["test-result"],
                actions: [
                  {
                    key: "notify",
                    name: "Notify control owner",
                    type: Act.SendNotification,
                    targets: ["owner"],
                  },
                  {
                    key: "retest",
                    name: "Require retest date",
                    type: Act.RequireFields,
                    targets: ["last-tested"],
                  },
                ],
              },
            ]
          : [],
      },
    ],
  };
}

function risks(variant: "dev" | "prod"): ModuleSpec {
  const dev = variant === "dev";
  return {
    key: "risks",
    type: "Application",
    name: "Risk Register",
    description: "<p>The enterprise risk register.</p>",
    keepLicensed: true,
    translations: dev ? [{ LanguageId: FRENCH, Name: "Registre des risques", Description: null }] : [],
    levels: [
      {
        key: "risk",
        name: "Risk",
        translations: dev ? [{ LanguageId: FRENCH, Name: "Risque", Description: null }] : [],
        fields: [
          field("name", "Risk Name", T.Text, {
            required: true,
            translations: dev ? [{ LanguageId: FRENCH, Name: "Nom du risque", Description: null }] : [],
          }),
          field("description", "Risk Description", T.Text),
          field("category", "Category", T.ValuesList, {
            values: ["Strategic", "Operational", "Financial", "Compliance", "Technology"],
          }),
          field("likelihood", "Likelihood", T.ValuesList, {
            values: ["Rare", "Unlikely", "Possible", "Likely", "Almost Certain"],
          }),
          field("impact", "Impact", T.ValuesList, {
            values: ["Minimal", "Minor", "Moderate", "Major", "Severe"],
          }),
          field("score", "Risk Score", T.Numeric),
          field("owner", "Risk Owner", T.UsersGroups),
          field("identified", "Identified Date", T.Date),
          field("controls", "Related Controls", T.CrossReference, { references: ["controls/control"] }),
          field("documents", "Supporting Documents", T.Attachment),
          field("comments", "Comments", T.SubForm, { subform: "comments" }),
        ],
        layout: {
          name: "Risk Layout",
          sections: [
            { name: "Risk", fields: ["name", "description", "category", "owner", "identified"] },
            { name: "Assessment", fields: ["likelihood", "impact", "score"] },
            { name: "Treatment", fields: ["controls", "documents", "comments"] },
          ],
        },
        rules: [
          {
            key: "escalate",
            name: "Escalate critical risks",
            condition: dev ? "Risk_Score >= 15" : "Risk_Score >= 20",
            fields: ["score"],
            actions: [
              { key: "notify", name: "Notify risk owner", type: Act.SendNotification, targets: ["owner"] },
              {
                key: "treatment",
                name: "Require treatment controls",
                type: Act.RequireFields,
                targets: ["controls"],
              },
            ],
          },
        ],
      },
    ],
  };
}

const findings: ModuleSpec = {
  key: "findings",
  type: "Application",
  name: "Findings",
  description: "<p>Audit and assessment findings and their remediation.</p>",
  keepLicensed: true,
  levels: [
    {
      key: "finding",
      name: "Finding",
      fields: [
        field("title", "Finding Title", T.Text, { required: true }),
        field("severity", "Severity", T.ValuesList, { values: ["Low", "Medium", "High", "Critical"] }),
        field("source", "Source", T.ValuesList, {
          values: ["Internal Audit", "External Audit", "Self-Assessment", "Regulator"],
        }),
        field("identified", "Identified Date", T.Date),
        field("due", "Due Date", T.Date),
        field("owner", "Remediation Owner", T.UsersGroups),
        field("control", "Related Control", T.CrossReference, { references: ["controls/control"] }),
        field("related", "Related Items", T.RelatedRecords, {
          references: ["risks/risk", "controls/control"],
        }),
        field("evidence", "Evidence", T.Attachment),
        field("comments", "Comments", T.SubForm, { subform: "comments" }),
      ],
      layout: {
        name: "Finding Layout",
        sections: [
          { name: "Finding", fields: ["title", "severity", "source", "identified"] },
          { name: "Remediation", fields: ["owner", "due", "evidence"] },
          { name: "Relationships", fields: ["control", "related", "comments"] },
        ],
      },
      rules: [
        {
          key: "critical",
          name: "Critical finding",
          condition: "Severity = Critical",
          fields: ["severity"],
          actions: [
            {
              key: "notify",
              name: "Notify remediation owner",
              type: Act.SendNotification,
              targets: ["owner"],
            },
            { key: "due", name: "Require due date", type: Act.RequireFields, targets: ["due"] },
          ],
        },
      ],
    },
  ],
};

const vendors: ModuleSpec = {
  key: "vendors",
  type: "Application",
  name: "Third Parties",
  description: "<p>Vendors and other third parties.</p>",
  levels: [
    {
      key: "vendor",
      name: "Third Party",
      fields: [
        field("name", "Vendor Name", T.Text, { required: true }),
        field("tier", "Tier", T.ValuesList, { values: ["Tier 1", "Tier 2", "Tier 3"] }),
        field("website", "Website", T.ExternalLinks),
        field("ip-range", "Egress IP Address", T.IpAddress),
        field("logo", "Logo", T.Image),
        field("owner", "Relationship Owner", T.UsersGroups),
        field("contract-end", "Contract End Date", T.Date),
      ],
      layout: {
        name: "Third Party Layout",
        sections: [
          { name: "Profile", fields: ["name", "logo", "tier", "website", "ip-range"] },
          { name: "Relationship", fields: ["owner", "contract-end"] },
        ],
      },
      rules: [
        {
          key: "tier1",
          name: "Tier 1 needs an owner",
          condition: "Tier = Tier 1",
          fields: ["tier"],
          actions: [{ key: "owner", name: "Require owner", type: Act.RequireFields, targets: ["owner"] }],
        },
      ],
    },
  ],
};

const assessment: ModuleSpec = {
  key: "vendor-assessment",
  type: "Questionnaire",
  name: "Vendor Risk Assessment",
  description: "<p>Annual security assessment of a third party.</p>",
  target: "assessment/target",
  levels: [
    {
      key: "assessment",
      name: "Vendor Risk Assessment",
      fields: [
        field("target", "Third Party", T.CrossReference, { required: true, references: ["vendors/vendor"] }),
        field("data-access", "Data Access", T.ValuesList, {
          values: ["None", "Internal", "Confidential", "Restricted"],
        }),
        field("soc2", "Has SOC 2 Report", T.ValuesList, { values: ["Yes", "No"] }),
        field("contact", "Security Contact", T.Text),
        field("matrix", "Control Matrix", T.Matrix),
        field("score", "Inherent Score", T.Numeric),
        field("submitted", "Submitted Date", T.Date),
      ],
      layout: {
        name: "Assessment Layout",
        sections: [
          { name: "Scope", fields: ["target", "data-access"] },
          { name: "Security", fields: ["soc2", "contact", "matrix"] },
          { name: "Result", fields: ["score", "submitted"] },
        ],
      },
      rules: [
        {
          key: "restricted",
          name: "Restricted data access",
          condition: "Data_Access = Restricted",
          fields: ["data-access"],
          actions: [
            { key: "soc2", name: "Require SOC 2 answer", type: Act.RequireFields, targets: ["soc2"] },
          ],
        },
      ],
      questionnaireRules: [
        {
          key: "high",
          name: "High inherent risk",
          condition: "Data_Access = Restricted AND Has_SOC_2_Report = No",
          fields: ["data-access", "soc2"],
          outcome: "Flag as high risk",
        },
        {
          key: "contact",
          name: "Missing security contact",
          condition: "Security_Contact is empty",
          fields: ["contact"],
          outcome: "Request a security contact",
        },
      ],
    },
  ],
};

export function demoCatalogueSpec(variant: "dev" | "prod"): CatalogueSpec {
  const modules =
    variant === "dev"
      ? [comments, policies, controls("dev"), risks("dev"), findings, vendors, assessment]
      : // Older, and created in another order: ids must not line up with dev's.
        [assessment, vendors, risks("prod"), controls("prod"), policies, comments];
  return {
    namespace: NAMESPACE,
    date: variant === "dev" ? "2026-02-02T10:00:00.000Z" : "2025-09-15T08:30:00.000Z",
    modules,
    reports: [
      {
        key: "open-high-risks",
        name: "Open High Risks",
        description: "Risks scored 15 or more, by owner.",
        level: "risks/risk",
        fields: ["name", "score", "owner", "identified"],
      },
    ],
  };
}

/** Counter offsets of demo-prod, so that its ids differ from demo-dev's. */
const PROD_OFFSETS = {
  modules: 40,
  levels: 200,
  fields: 1000,
  values: 5000,
  layouts: 300,
  eventRules: 400,
  eventActions: 600,
  questionnaireRules: 700,
  reports: 800,
} as const;

export function seedDemoCatalogue(store: Store, variant: "dev" | "prod"): void {
  const catalogue = catalogueOf(store);
  if (variant === "prod") {
    for (const [counter, start] of Object.entries(PROD_OFFSETS)) {
      catalogue.startCounter(counter as keyof typeof PROD_OFFSETS, start);
    }
  }
  buildCatalogue(catalogue, demoCatalogueSpec(variant));
}
