import { z } from "zod";
import type { PackageObjectType } from "../../state/index.ts";

/*
 * The inputs of a package's six steps, shared by the planner, the plan file check and
 * src/apply/ops/package.ts. Steps that need only what an earlier step produced take no input.
 */

/** The object types are the interface's; the platform checks them on create and install. */
const objectType = z.custom<PackageObjectType>((value) => typeof value === "string", "must be a string");

const Packed = z.object({ guid: z.string(), type: objectType, name: z.string() });

const Nothing = z.object({});

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
    /** The guids the downloaded file must hold (global reports are trusted, not listed). */
    "package.download": z.object({ objects: z.array(z.string()) }),
    "package.upload": Nothing,
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
    }),
    "package.verify": z.object({
      objects: z.array(z.object({ guid: z.string(), name: z.string(), fingerprint: z.string() })),
    }),
  },
} as const;
