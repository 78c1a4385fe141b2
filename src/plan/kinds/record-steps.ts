import { z } from "zod";
import { RecordDelete } from "./record-delete-steps.ts";

/*
 * The inputs of a record's steps, shared by the planner, the plan file check and
 * src/apply/ops/record.ts: each field by its field id and type, its value as the content REST calls
 * take it (a values list as its values' ids, users and groups as their ids), so that apply sends
 * what the plan showed.
 */

const int = z.number().int();

/**
 * A cross-reference or related-records field's records: each a live record's content id, or the
 * `step` of the same plan that creates it, whose output's `id` the op takes at run time.
 */
const References = z.object({
  references: z.array(
    z.union([z.object({ contentId: int, levelId: int }), z.object({ step: z.string(), levelId: int })]),
  ),
});

/** A value as the content calls take it. */
const PlainValue = z.union([
  z.string(),
  z.number(),
  z.null(),
  z.object({ ValuesListIds: z.array(int), OtherText: z.string().nullable() }),
  z.object({ UserList: z.array(z.object({ Id: int })), GroupList: z.array(z.object({ Id: int })) }),
  z.array(z.object({ Name: z.string(), URL: z.string() })),
]);

/**
 * A field's value as the content calls take it: `null` clears it; references, attachments and
 * sub-form rows become ids on apply.
 */
export const FieldWriteValue = z.union([
  PlainValue,
  References,
  z.object({
    SubformFieldId: int,
    Rows: z.array(
      z.union([
        z.object({ id: int }),
        z.object({
          levelId: int,
          fields: z.array(z.object({ fieldId: int, type: int, value: PlainValue })),
        }),
      ]),
    ),
  }),
  z.object({
    Attachments: z.array(
      z.union([z.object({ id: int }), z.object({ path: z.string(), name: z.string(), sha256: z.string() })]),
    ),
  }),
]);

/** One managed field's new value. */
const FieldWrite = z.object({ fieldId: int, type: int, value: FieldWriteValue });

/**
 * A field the install of a package of the same plan adds: by GUID, the same on every instance,
 * since its id is known only once installed; a values list's values by GUID too. Apply reads the
 * level's field definitions after the install and writes ids (src/apply/ops/record-packaged.ts).
 */
const PackagedWrite = z.object({
  guid: z.string(),
  /** As the plan showed it, for messages. */
  name: z.string(),
  type: int,
  value: z.union([
    z.object({
      ValuesListGuids: z.array(z.object({ guid: z.string(), name: z.string() })),
      OtherText: z.string().nullable(),
    }),
    PlainValue,
  ]),
});
export type PackagedWrite = z.infer<typeof PackagedWrite>;

const Target = z.object({
  application: z.string(),
  /** The record's key values, in the document's `key` order: how messages name it. */
  key: z.array(z.string()),
  /** The level's id; absent when a package of the same plan adds the level (then `level`). */
  levelId: int.optional(),
  /** A level the plan's package adds, by GUID, with its application's GUID: its id is read after the install. */
  level: z.object({ guid: z.string(), name: z.string(), application: z.string() }).optional(),
  fields: z.array(FieldWrite),
  /**
   * Where a create whose answer was lost looks for the record it may have made: the level's
   * Content API entity set and the key fields' aliases, in `key` order.
   */
  entitySet: z.string(),
  keyAliases: z.array(z.string()),
  /** Fields the plan's packages add to the level, written once their ids are known. */
  packaged: z.array(PackagedWrite).optional(),
});

/** The Record kind: its name in plans, and its step ops with the schema of each op's input. */
export const recordSteps = {
  kind: "Record",
  ops: {
    "record.create": Target,
    "record.update": Target.extend({
      contentId: int,
      /** The written fields' values as the plan read them, which a rollback writes back. */
      prior: z.array(FieldWrite).optional(),
    }),
    "record.delete": RecordDelete,
  },
  actions: {
    create: ["record.create"],
    update: ["record.update"],
    delete: ["record.delete"],
  },
} as const;
