/* The error family: a leaf every stage may import; it imports nothing of egp's. */
export type { CodeRow, ErrorCode } from "./codes.ts";
export { ERROR_CODES, isErrorCode } from "./codes.ts";
export { codedMessage, EgpError } from "./egp-error.ts";
