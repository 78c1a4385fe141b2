export { FolderStore } from "./folder-store.ts";
export { environmentKey, historyKey, historyPrefix, releaseKey, verifiedKey } from "./keys.ts";
export { type OciCredentials, OciStore, type OciStoreOptions, parseOciReference } from "./oci-store.ts";
export {
  checkStoreSpec,
  DEFAULT_STORE,
  isMachineLocal,
  openSignedStore,
  openStore,
  type StoreSpec,
} from "./open-store.ts";
export {
  assertCanSign,
  distrust,
  generateSigningKey,
  isPublicKey,
  Keyring,
  type KeyringOptions,
  keyedDigestOf,
  SignedStore,
  signerOf,
  type Trust,
  trustOf,
  withoutSignature,
} from "./signing.ts";
export { KEY_SEGMENT, type PutRecordOptions, type ReleaseStore } from "./store.ts";
export { StoreError } from "./store-error.ts";
