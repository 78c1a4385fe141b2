import { z } from "zod";

/*
 * The inputs of a user's steps: the planner builds them, the plan file is checked against them on
 * load, and src/apply/ops/user.ts consumes them. One declaration, so producer and consumer agree.
 */

const text = z.string().nullable().optional();

/** The managed scalar fields, named as the interface names them (the manifest's `UserFields`). */
const UserFields = z.object({
  FirstName: z.string().optional(),
  LastName: z.string().optional(),
  MiddleName: text,
  DisplayName: text,
  AccountStatus: z.number().int().optional(),
  Title: text,
  Company: text,
  Department: text,
  BusinessUnit: text,
  Address: text,
  AdditionalNote: text,
  Locale: text,
  TimeZoneId: text,
  LanguageId: z.number().int().nullable().optional(),
  ForcePasswordChange: z.boolean().optional(),
  DomainId: z.number().int().nullable().optional(),
});

const Contact = z.object({
  ContactType: z.number().int(),
  ContactSubType: z.number().int(),
  IsDefault: z.boolean(),
  Value: z.string(),
});

/** What create and update manage; roles and groups are this environment's ids. */
const Managed = z.object({
  userName: z.string(),
  fields: UserFields,
  securityParameter: z.string().optional(),
  roles: z.array(z.number().int()).optional(),
  groups: z.array(z.number().int()).optional(),
  contacts: z.array(Contact).optional(),
});

/** A live user: `id` as read when planning, found again by name if it moved. */
const LiveUser = z.object({ userName: z.string(), id: z.number().int().optional() });

/** The User kind: its name in plans, and its step ops with the schema of each op's input. */
export const userSteps = {
  kind: "User",
  ops: {
    // The password is never in the plan: it is read again from the manifest, or generated.
    // The interface's create requires both names (the manifest does too).
    "user.create": Managed.extend({
      fields: UserFields.extend({ FirstName: z.string(), LastName: z.string() }),
      passwordFrom: z.enum(["manifest", "generated"]),
    }),
    "user.update": Managed.extend({ id: z.number().int() }),
    "user.activate": LiveUser,
    "user.deactivate": LiveUser,
    "user.delete": LiveUser,
  },
  // An update sets the status by its own calls where the interface wants them; a prune deactivates.
  actions: {
    create: ["user.create"],
    update: ["user.update", "user.activate", "user.deactivate"],
    delete: ["user.delete"],
    deactivate: ["user.deactivate"],
  },
} as const;
