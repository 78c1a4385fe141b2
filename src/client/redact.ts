/*
 * Secrets are removed at the source: every string the client logs or puts in an error goes through
 * a scrubber that knows the configured password, every session token it has seen, and passwords
 * it has sent on a caller's behalf. Patterns catch tokens the scrubber was never told about.
 *
 * A known value is removed only where it stands whole, between characters that can't be part of a
 * name, an address or a token: a password of `1` never turns `https://127.0.0.1:4010` into
 * `https://[redacted]27.0.0.[redacted]:[redacted]`, which would tell the reader the password. The
 * text egp composes itself (the url, the method, the path, names from manifests) holds no secret
 * and is not scrubbed by value (caller.ts): redacting a name because it equals a secret would
 * answer "is this the password?" to whoever chose the name.
 */

export const REDACTED = "[redacted]";

// `session-id="<token>"` in an Authorization header, quoted or not.
const SESSION_ID = /(session-id\s*=\s*)"?[^"\s,;]+"?/gi;
// A JSON property whose value is a secret, in any casing: "Password":"...".
const SECRET_PROPERTY = /("(?:password|newpassword|sessiontoken|attachmentbytes)"\s*:\s*)"(?:[^"\\]|\\.)*"/gi;

export type Scrub = (text: string) => string;

/** Removes known secrets, and secret-shaped patterns, from strings. */
export class Scrubber {
  private readonly secrets = new Set<string>();
  // Longest first, so that a secret containing another is removed whole.
  private ordered: string[] = [];

  constructor(initial: Iterable<string | undefined> = []) {
    for (const secret of initial) this.add(secret);
  }

  /** Remembers a secret; its raw, JSON-escaped and URL-encoded spellings are all removed. */
  add(secret: string | undefined | null): void {
    if (!secret) return;
    for (const spelling of [secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret)]) {
      if (this.secrets.has(spelling)) continue;
      this.secrets.add(spelling);
      // Inserted in place: sorting the whole list on every add made an apply creating N users O(N² log N).
      this.ordered.splice(insertionPoint(this.ordered, spelling.length), 0, spelling);
    }
  }

  readonly scrub: Scrub = (text) => {
    let out = text.replace(SESSION_ID, `$1"${REDACTED}"`).replace(SECRET_PROPERTY, `$1"${REDACTED}"`);
    for (const secret of this.ordered) {
      if (out.includes(secret)) out = replaceWhole(out, secret);
    }
    return out;
  };

  /** A copy of a value with every string scrubbed; cycles and depth are bounded. */
  scrubDeep<T>(value: T): T {
    return scrubValue(value, this.scrub, 0) as T;
  }
}

/** Characters of a name, an address or a token: a secret next to one is part of something else. */
const WORD = /[\p{L}\p{N}._~:/@%+-]/u;

/** `text` with every whole occurrence of `secret` replaced by REDACTED. */
function replaceWhole(text: string, secret: string): string {
  let out = "";
  let from = 0;
  for (let at = text.indexOf(secret); at >= 0; at = text.indexOf(secret, at + 1)) {
    const before = text[at - 1];
    const after = text[at + secret.length];
    // A full stop or colon that ends a sentence or a clause is no part of the secret before it.
    const next = text[at + secret.length + 1];
    const ends = (after === "." || after === ":") && (next === undefined || /\s/.test(next));
    const whole =
      (before === undefined || !WORD.test(before)) && (after === undefined || ends || !WORD.test(after));
    if (!whole || at < from) continue;
    out += text.slice(from, at) + REDACTED;
    from = at + secret.length;
  }
  return out + text.slice(from);
}

/** Where a string of `length` goes in a list sorted longest first (after those of equal length). */
function insertionPoint(ordered: string[], length: number): number {
  let low = 0;
  let high = ordered.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((ordered[middle] as string).length >= length) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Patterns only: for places that have no scrubber at hand. */
export const scrubPatterns: Scrub = (text) => new Scrubber().scrub(text);

function scrubValue(value: unknown, scrub: Scrub, depth: number): unknown {
  if (typeof value === "string") return scrub(value);
  if (value === null || typeof value !== "object" || depth > 8) return value;
  if (Array.isArray(value)) return value.map((item) => scrubValue(item, scrub, depth + 1));
  if (value instanceof Error) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) out[key] = scrubValue(inner, scrub, depth + 1);
  return out;
}
