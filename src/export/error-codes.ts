/* Codes of the failures export raises; docs/errors.md describes them (see apply/error-codes.ts). */
export const ExportErrorCode = {
  /** The --out folder holds a file export can't merge an environment into. */
  Merge: "EGP_EXPORT_MERGE",
} as const;

export type ExportErrorCode = (typeof ExportErrorCode)[keyof typeof ExportErrorCode];

export const EXPORT_ERROR_CODES: readonly ExportErrorCode[] = Object.values(ExportErrorCode);
