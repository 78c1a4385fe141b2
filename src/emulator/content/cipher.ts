import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import type { Store } from "../store.ts";
import { type ContentData, contentOf } from "./model.ts";

/*
 * AES-256-GCM for sensitive attachments. The key comes from EGP_EMULATOR_ATTACHMENT_KEY (64 hex
 * characters) or, when that is not set, is generated once and kept with the data (the snapshot),
 * as a real instance keeps its key beside its file repository. Each file gets a random 96-bit IV;
 * the attachment id is authenticated data, so a ciphertext can't be moved to another attachment.
 * Each file records which key sealed it (a fingerprint, not the key), so that a key given later in
 * the environment does not orphan files sealed with the generated one.
 */

export const ATTACHMENT_KEY_ENV = "EGP_EMULATOR_ATTACHMENT_KEY";

export interface Sealed {
  data: Buffer;
  iv: Buffer;
  tag: Buffer;
  keyId: string;
}

/** The key from the environment; a malformed value is an error that names the variable, not the value. */
export function keyFromEnvironment(env: NodeJS.ProcessEnv = process.env): Buffer | undefined {
  const raw = env[ATTACHMENT_KEY_ENV]?.trim();
  if (!raw) return undefined;
  if (!/^[0-9a-fA-F]{64}$/.test(raw)) {
    throw new Error(`${ATTACHMENT_KEY_ENV} must be 64 hexadecimal characters (a 256-bit key)`);
  }
  return Buffer.from(raw, "hex");
}

function keyIdOf(key: Buffer): string {
  return createHash("sha256").update("egp-attachment-key").update(key).digest("hex").slice(0, 16);
}

export class Keyring {
  private readonly environmentKey: Buffer | undefined;
  private readonly store: Store;

  constructor(store: Store, environmentKey: Buffer | undefined) {
    this.store = store;
    this.environmentKey = environmentKey;
  }

  private content(): ContentData {
    return contentOf(this.store);
  }

  /** The key new files are sealed with: the environment's, else the generated one (made on first use). */
  private current(): Buffer {
    if (this.environmentKey) return this.environmentKey;
    const content = this.content();
    if (!content.generatedKey) {
      content.generatedKey = randomBytes(32).toString("hex");
      this.store.changed();
    }
    return Buffer.from(content.generatedKey, "hex");
  }

  private byId(keyId: string): Buffer | undefined {
    const generated = this.content().generatedKey;
    const candidates = [this.environmentKey, generated ? Buffer.from(generated, "hex") : undefined];
    return candidates.find((key) => key !== undefined && keyIdOf(key) === keyId);
  }

  seal(plain: Buffer, aad: string): Sealed {
    const key = this.current();
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", key, iv);
    cipher.setAAD(Buffer.from(aad));
    const data = Buffer.concat([cipher.update(plain), cipher.final()]);
    return { data, iv, tag: cipher.getAuthTag(), keyId: keyIdOf(key) };
  }

  /** The plain bytes, or undefined when the key that sealed them is not available. Throws if tampered. */
  open(sealed: Sealed, aad: string): Buffer | undefined {
    const key = this.byId(sealed.keyId);
    if (!key) return undefined;
    const decipher = createDecipheriv("aes-256-gcm", key, sealed.iv);
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(sealed.tag);
    return Buffer.concat([decipher.update(sealed.data), decipher.final()]);
  }
}
