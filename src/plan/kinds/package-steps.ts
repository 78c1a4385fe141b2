import { z } from "zod";
import type { PackageObjectType } from "../../state/index.ts";

/*
 * The inputs of a package's steps, shared by the planner, the plan file check and
 * src/apply/ops/package.ts. Steps that need only what an earlier step produced take no input.
 * A promotion: create → generate → download on the source; snapshot → snapshot-generate →
 * snapshot-download on the target (the target's current versions, for `egp rollback`); then
 * upload → install → verify on the target. A rollback: upload (a kept snapshot) → install →
 * rollback-verify.
 */

/** The object types are the interface's; the platform checks them on create and install. */
const objectType = z.custom<PackageObjectType>((value) => typeof value === "string", "must be a string");

const Packed = z.object({ guid: z.string(), type: objectType, name: z.string() });

const Nothing = z.object({});

/** An object of the target as the plan read it: a snapshot made from another state is not reused. */
const Snapshotted = Packed.extend({ fingerprint: z.string() });

/** The Package kind: its name in plans, and its step ops with the schema of each op's input. */
export const packageSteps = {
  kind: "Package",
  ops: {
    "package.create": z.object({
      name: z.string(),
      description: z.string().nullable(),
      preparedBy: z.string(),
      objects: z.array(Packed),
    }),
    "package.generate": Nothing,
    /** A release's file, from the release store into the artifact cache: its sha256 is checked. */
    "package.fetch": z.object({ release: z.string(), sha256: z.string(), size: z.number().int() }),
    /** The guids the downloaded file must hold (global reports are trusted, not listed). */
    "package.download": z.object({ objects: z.array(z.string()) }),
    /** The target's current versions of the objects it already has, packaged before the install. */
    "package.snapshot": z.object({ name: z.string(), objects: z.array(Snapshotted) }),
    "package.snapshot-generate": Nothing,
    "package.snapshot-download": z.object({ objects: z.array(z.string()) }),
    /** `artifact`: a kept package (a rollback's snapshot); else the file the download step left. */
    "package.upload": z.object({ artifact: z.string().optional() }),
    "package.install": z.object({
      inactivateUnusedFields: z.boolean(),
      prefixInactivatedFields: z.string().nullable(),
      objects: z.array(
        Packed.extend({
          installMethod: z.number().int(),
          installOption: z.number().int(),
          translationOption: z.number().int(),
        }),
      ),
      /**
       * A promotion's install writes a release record (.egp/releases) before it asks for the
       * install: the objects it creates on the target, which a rollback can't remove. A
       * rollback's install has none.
       */
      release: z
        .object({ from: z.string(), created: z.array(Packed), release: z.string().optional() })
        .optional(),
    }),
    "package.verify": z.object({
      objects: z.array(
        z.object({
          guid: z.string(),
          name: z.string(),
          fingerprint: z.string(),
          /** A release's recorded part fingerprints: each must read so once installed (as the options leave it). */
          parts: z.record(z.string(), z.string()).optional(),
          installMethod: z.number().int().optional(),
          installOption: z.number().int().optional(),
        }),
      ),
    }),
    /** The release whose snapshot a rollback installs; its parts must read as they did then. */
    "package.rollback-verify": z.object({ release: z.string() }),
  },
  // A promotion from a source environment builds its file there; one of a release fetches it.
  actions: {
    promote: [
      "package.create",
      "package.generate",
      "package.fetch",
      "package.download",
      "package.snapshot",
      "package.snapshot-generate",
      "package.snapshot-download",
      "package.upload",
      "package.install",
      "package.verify",
    ],
    rollback: ["package.upload", "package.install", "package.rollback-verify"],
  },
  /** A release's bytes are checked before the apply writes anything: a corrupt blob writes nothing. */
  first: ["package.fetch"],
} as const;
