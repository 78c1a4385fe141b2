import { Scrubber } from "../client/redact.ts";
import type { DesiredState } from "../manifest/index.ts";

/*
 * The second line of defence behind the plans' own hiding of sensitive values: every value
 * substituted from `${VAR}` (and the password) is removed from what the CLI writes to stdout and
 * stderr, whichever code path wrote it. Values shorter than MIN_LENGTH are left alone: removing
 * `eu` from every word would make the output unreadable, and plans already hide such values.
 */

const MIN_LENGTH = 4;
const scrubber = new Scrubber();
let installed = false;
let known = 0;

type Write = typeof process.stdout.write;

function guard(stream: NodeJS.WriteStream): void {
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (known === 0) return write(chunk, ...rest);
    if (typeof chunk === "string") return write(scrubber.scrub(chunk), ...rest);
    if (chunk instanceof Uint8Array)
      return write(scrubber.scrub(Buffer.from(chunk).toString("utf8")), ...rest);
    return write(chunk, ...rest);
  }) as Write;
}

/** Adds values to the output scrubber; the first call puts it in front of stdout and stderr. */
export function guardOutput(values: Iterable<string>): void {
  for (const value of values) {
    if (value.length < MIN_LENGTH) continue;
    scrubber.add(value);
    known += 1;
  }
  if (installed || known === 0) return;
  installed = true;
  guard(process.stdout);
  guard(process.stderr);
}

/** Every substituted value of a desired state, and the substituted values of its environments. */
export function guardDesired(desired: DesiredState): void {
  guardOutput([
    ...(desired.sensitive ?? []).map((value) => value.value.reveal()),
    ...[desired.environment, desired.packagesFrom].flatMap((config) =>
      (config?.sensitive ?? []).map((value) => value.reveal()),
    ),
  ]);
}
