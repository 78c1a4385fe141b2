export { STORE_ERROR_CODES, StoreError, StoreErrorCode } from "./error-codes.ts";
export { FolderStore } from "./folder-store.ts";
export { environmentKey, historyKey, historyPrefix, releaseKey, verifiedKey } from "./keys.ts";
export { KEY_SEGMENT, type PutRecordOptions, type ReleaseStore } from "./store.ts";
