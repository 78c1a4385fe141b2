import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import {
  chmodSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  rmSync,
  type Stats,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { EgpError } from "../errors/index.ts";
import { statOf } from "./private-dir.ts";

/*
 * The per-user local key: what lets egp tell the state it wrote on this machine (`.egp/cache`,
 * journals, records signed with no configured key) from state that arrived another way (a
 * repository's tree, a pull request, a copied folder). It lives outside every repository and
 * store, in the user's config folder, so nothing a repository carries can be sealed with it.
 *
 * Where it comes from, first that applies:
 * - `EGP_STATE_KEY`: the key itself (any text of 32 characters or more; CI runners whose home is
 *   thrown away keep theirs as a secret);
 * - `$XDG_CONFIG_HOME/egp/state.key`, else `~/.config/egp/state.key`: 32 random bytes made on first
 *   use, 0600 in a 0700 folder, refused when it is a link, another user's, or readable by others
 *   (as ssh refuses a private key).
 */

/** A local key that cannot be used: too short, a link, another user's, open to others. */
export class LocalKeyError extends EgpError {
  constructor(message: string) {
    super("EGP_LOCAL_KEY_UNUSABLE", message);
    this.name = "LocalKeyError";
  }
}

export interface LocalKey {
  /** Where the key came from: `EGP_STATE_KEY` or the key file's path (for messages). */
  readonly source: string;
  /** A short public name of the key (a hash of it): which key sealed a record, never the key. */
  readonly id: string;
  /** HMAC-SHA256 of `bytes` under the key, in hex; `purpose` keeps one use's tags from passing as another's. */
  seal(bytes: Uint8Array | string, purpose?: string): string;
  /** Whether `tag` is `seal(bytes, purpose)`, compared in constant time. */
  check(bytes: Uint8Array | string, tag: string, purpose?: string): boolean;
}

const KEY_BYTES = 32;
const MIN_ENV_KEY = 32;
const KEY_FILE = "state.key";

/** The folder the key file lives in: `$XDG_CONFIG_HOME/egp` or `~/.config/egp`. */
export function localKeyFolder(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME?.startsWith("/") ? env.XDG_CONFIG_HOME : join(homedir(), ".config");
  return join(base, "egp");
}

function makeKey(secret: Buffer, source: string): LocalKey {
  const id = createHash("sha256").update("egp local key id\0").update(secret).digest("hex").slice(0, 16);
  const seal = (bytes: Uint8Array | string, purpose = "") =>
    createHmac("sha256", secret).update(`${purpose}\0`).update(bytes).digest("hex");
  const check = (bytes: Uint8Array | string, tag: string, purpose = "") => {
    const want = Buffer.from(seal(bytes, purpose), "hex");
    const got = /^[0-9a-f]{64}$/.test(tag) ? Buffer.from(tag, "hex") : Buffer.alloc(0);
    return got.length === want.length && timingSafeEqual(got, want);
  };
  return Object.freeze({ source, id, seal, check });
}

function refuse(path: string, stat: Stats, kind: "folder" | "file"): void {
  const uid = process.getuid?.();
  let why: string | undefined;
  if (stat.isSymbolicLink()) why = "is a symbolic link";
  else if (kind === "folder" ? !stat.isDirectory() : !stat.isFile()) why = `is not a ${kind}`;
  else if (uid !== undefined && stat.uid !== uid) why = `belongs to another user (uid ${stat.uid})`;
  else if (kind === "file" && (stat.mode & 0o077) !== 0) why = "can be read or written by other users";
  if (why)
    throw new LocalKeyError(
      `egp's local key ${path} ${why}: remove it (egp makes a new one) or set EGP_STATE_KEY`,
    );
}

function readKeyFile(file: string): Buffer | undefined {
  const stat = statOf(file);
  if (!stat) return undefined;
  refuse(file, stat, "file");
  const bytes = readFileSync(file);
  if (bytes.length !== KEY_BYTES)
    throw new LocalKeyError(
      `egp's local key ${file} is not ${KEY_BYTES} bytes: remove it, and egp makes a new one`,
    );
  return bytes;
}

/** Makes the key file once: written aside, then linked into place, so two first runs agree on one key. */
function createKeyFile(folder: string, file: string): Buffer {
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const stat = lstatSync(folder);
  refuse(folder, stat, "folder");
  if ((stat.mode & 0o777) !== 0o700) chmodSync(folder, 0o700);
  const aside = join(folder, `${KEY_FILE}.${process.pid}.new`);
  writeFileSync(aside, randomBytes(KEY_BYTES), { mode: 0o600, flag: "w" });
  try {
    linkSync(aside, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    rmSync(aside, { force: true });
  }
  const key = readKeyFile(file);
  if (!key) throw new LocalKeyError(`egp's local key ${file} could not be made`);
  return key;
}

const loaded = new Map<string, LocalKey>();

/** The local key of this user (made on first use); throws `LocalKeyError`. */
export function localKey(env: NodeJS.ProcessEnv = process.env): LocalKey {
  const fromEnv = env.EGP_STATE_KEY;
  if (fromEnv !== undefined && fromEnv !== "") {
    if (fromEnv.length < MIN_ENV_KEY)
      throw new LocalKeyError(`EGP_STATE_KEY is shorter than ${MIN_ENV_KEY} characters: use a random one`);
    const cached = loaded.get(`env\0${fromEnv}`);
    if (cached) return cached;
    const key = makeKey(Buffer.from(fromEnv, "utf8"), "EGP_STATE_KEY");
    loaded.set(`env\0${fromEnv}`, key);
    return key;
  }
  const folder = localKeyFolder(env);
  const file = join(folder, KEY_FILE);
  const cached = loaded.get(file);
  if (cached) return cached;
  const key = makeKey(readKeyFile(file) ?? createKeyFile(folder, file), file);
  loaded.set(file, key);
  return key;
}
