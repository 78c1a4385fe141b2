/*
 * Every error the client raises carries one of these stable codes. Callers branch on the code, never
 * on message text. Each code is described in docs/errors.md; a test keeps the two in step.
 */
export const ErrorCode = {
  ClientOptions: "EGP_CLIENT_OPTIONS",
  InvalidArgument: "EGP_INVALID_ARGUMENT",
  LoginFailed: "EGP_LOGIN_FAILED",
  Unauthorized: "EGP_UNAUTHORIZED",
  Forbidden: "EGP_FORBIDDEN",
  NotFound: "EGP_NOT_FOUND",
  NoApi: "EGP_NO_API",
  Validation: "EGP_VALIDATION",
  RequestFailed: "EGP_REQUEST_FAILED",
  RateLimited: "EGP_RATE_LIMITED",
  Unavailable: "EGP_UNAVAILABLE",
  HttpError: "EGP_HTTP_ERROR",
  Connection: "EGP_CONNECTION",
  Timeout: "EGP_TIMEOUT",
  Tls: "EGP_TLS",
  OutcomeUnknown: "EGP_OUTCOME_UNKNOWN",
  ResponseShape: "EGP_RESPONSE_SHAPE",
  Transfer: "EGP_TRANSFER",
  ResponseTooLarge: "EGP_RESPONSE_TOO_LARGE",
  /** A package download past `limits.packageBytes`: stopped, and nothing kept. */
  PackageTooLarge: "EGP_PACKAGE_TOO_LARGE",
  RetryAfterTooLong: "EGP_RETRY_AFTER_TOO_LONG",
  /** The abort reason of a try past its deadline; never reaches callers, who see EGP_TIMEOUT. */
  RequestDeadline: "EGP_REQUEST_DEADLINE",
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export const ERROR_CODES: readonly ErrorCode[] = Object.values(ErrorCode);
