/* Codes of the failures manifest loading raises; docs/errors.md describes them (see apply/error-codes.ts). */
export const ManifestErrorCode = {
  Invalid: "EGP_MANIFEST_INVALID",
} as const;

export type ManifestErrorCode = (typeof ManifestErrorCode)[keyof typeof ManifestErrorCode];

export const MANIFEST_ERROR_CODES: readonly ManifestErrorCode[] = Object.values(ManifestErrorCode);
