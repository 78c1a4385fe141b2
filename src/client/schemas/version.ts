import { z } from "zod";

/** The version read: the seed shows no body; instances answer the release as `Version`. */
export const InstanceVersion = z.looseObject({ Version: z.string(), InstanceName: z.string().optional() });
export type InstanceVersion = z.infer<typeof InstanceVersion>;
