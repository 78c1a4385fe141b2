import { z } from "zod";
import type { FieldSource } from "./errors.ts";
import type { Reporter } from "./report.ts";

/*
 * Checks of behaviour after an install, before a release counts as verified on an environment
 * (docs/apply.md, "Checks"): what the platform does with what was installed, which reading the
 * metadata back can't tell. Each is read-only, or cleans up after itself; one that writes (the record
 * probe) needs `verify.allowWrites: true`, so that nobody's verification writes to an instance
 * unasked.
 */

const FieldValues = z.record(z.string(), z.union([z.string(), z.number()]));

const WorkflowCheck = z.strictObject({
  workflow: z.strictObject({
    record: z.strictObject({
      application: z.string().trim().min(1).describe("The record's application, by name."),
      key: FieldValues.describe(
        "Field name → value that identify the one record, as a Record document's key.",
      ),
    }),
    node: z.string().trim().min(1).describe("The workflow node the record must be at."),
    transitions: z
      .array(z.string().trim().min(1))
      .min(1)
      .describe("Transitions that must be offered at that node (a subset of what is offered)."),
  }),
});

const RecordProbe = z.strictObject({
  record: z.strictObject({
    application: z.string().trim().min(1).describe("The application to create the probe record in, by name."),
    create: FieldValues.describe(
      "The probe's fields by name (values lists by value name): created, read back, then deleted.",
    ),
  }),
});

const UsersCheck = z.strictObject({
  users: z.strictObject({
    group: z
      .string()
      .trim()
      .min(1)
      .describe("A group, by name: it must have members, and each must have the role."),
    hasRole: z.string().trim().min(1).describe("The role, by name, every member of the group must have."),
  }),
});

export const VerifyCheckDocument = z.union([WorkflowCheck, RecordProbe, UsersCheck]);

export const VerifyChecksDocument = z
  .array(VerifyCheckDocument)
  .optional()
  .describe(
    "Checks of behaviour run after the install and before the release counts as verified: a workflow's transitions, a record probe (needs allowWrites), a group's role.",
  );

export type VerifyCheck =
  | ({ kind: "workflow" } & z.infer<typeof WorkflowCheck>["workflow"])
  | ({ kind: "record" } & z.infer<typeof RecordProbe>["record"])
  | ({ kind: "users" } & z.infer<typeof UsersCheck>["users"]);

/** A check with where it is written, for messages. */
export type PlacedCheck = VerifyCheck & { source: FieldSource };

function normalize(check: z.infer<typeof VerifyCheckDocument>): VerifyCheck {
  if ("workflow" in check) return { kind: "workflow", ...check.workflow };
  if ("record" in check) return { kind: "record", ...check.record };
  return { kind: "users", ...check.users };
}

/** The checks, each at its position; a check that writes without `allowWrites` is an error there. */
export function verifyChecksOf(
  checks: z.infer<typeof VerifyChecksDocument>,
  allowWrites: boolean | undefined,
  report: Reporter,
): PlacedCheck[] {
  return (checks ?? []).map((check, index) => {
    const placed = { ...normalize(check), source: report.where(["verify", "checks", index]) };
    if (placed.kind === "record" && allowWrites !== true)
      report.error(
        ["verify", "checks", index, "record"],
        "a record probe writes to the instance (it creates a record and deletes it): set verify.allowWrites: true to allow it",
      );
    return placed;
  });
}

/** How a check is named in messages: `workflow of Risk Register "Cloud provider outage" at Review`. */
export function checkLabel(check: VerifyCheck): string {
  switch (check.kind) {
    case "workflow":
      return `workflow of ${check.record.application} ${Object.values(check.record.key)
        .map((value) => JSON.stringify(String(value)))
        .join(", ")} at ${check.node}`;
    case "record":
      return `record probe in ${check.application}`;
    case "users":
      return `users of group ${JSON.stringify(check.group)} have role ${JSON.stringify(check.hasRole)}`;
  }
}
