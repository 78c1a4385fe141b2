/* Codes of the failures io raises; docs/errors.md describes them (see apply/error-codes.ts). */
export const IoErrorCode = {
  LockUnreadable: "EGP_LOCK_UNREADABLE",
  /** A folder or file under `.egp/` is a symbolic link, another user's, or not what it should be. */
  StateUnsafe: "EGP_STATE_UNSAFE",
  /** The per-user local key is unusable: a link, another user's, open to others, or too short. */
  LocalKeyUnusable: "EGP_LOCAL_KEY_UNUSABLE",
} as const;

export type IoErrorCode = (typeof IoErrorCode)[keyof typeof IoErrorCode];

export const IO_ERROR_CODES: readonly IoErrorCode[] = Object.values(IoErrorCode);
