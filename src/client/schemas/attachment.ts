import { z } from "zod";

export const AttachmentWrapper = z.object({
  AttachmentName: z.string(),
  /** Base64 of the file's bytes. */
  AttachmentBytes: z.string(),
  /** true: stored encrypted. */
  IsSensitive: z.boolean().optional(),
});
export type AttachmentWrapper = z.infer<typeof AttachmentWrapper>;
