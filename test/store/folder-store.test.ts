import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FolderStore } from "../../src/store/index.ts";
import { storeContract } from "./contract.ts";

storeContract("FolderStore", async () => {
  const root = join(mkdtempSync(join(tmpdir(), "egp-store-")), "store");
  return {
    store: new FolderStore(root),
    alter: (digest, bytes) => writeFileSync(join(root, "blobs", "sha256", digest), bytes),
  };
});
