import { type CatalogueData, KINDS, type Kind } from "../catalogue/model.ts";
import type { FaultSpec } from "../faults.ts";

/*
 * An install that reports success is not an install that is done: on real instances a part of it
 * may land later, change again when the platform recalculates it, or be missing until a second
 * install (the packaging guide's advice: re-install until the warnings are static). These faults
 * make the emulator behave so for ONE part of what an install changes, so that a verifier can be
 * tested against each. The part is the first record the install changed, in the catalogue's kind
 * order with fields first (what every verifier reads), preferring a record that existed before (an
 * update) over one the install created, whose absence would leave others pointing at nothing. An
 * install's bookkeeping (UpdateInformation) and translations are not what a verifier compares.
 */

export type InstallFaultSpec = Pick<FaultSpec, "installLateMs" | "installChangeMs" | "installDrop">;

export interface PartRef {
  kind: Kind;
  key: string;
}

/** What an install swaps in now, and what happens to the live catalogue later, if anything. */
export interface ShapedInstall {
  data: CatalogueData;
  later?: { ms: number; apply(current: CatalogueData): CatalogueData | undefined };
}

const ORDER: readonly Kind[] = ["fields", ...KINDS.filter((kind) => kind !== "fields")];

/**
 * A record as a verifier compares it: without the bookkeeping every install rewrites, nor the
 * translations a package carries along (a translation option decides those, not the verifier).
 */
function substance(record: unknown): string {
  if (record === null || typeof record !== "object") return JSON.stringify(record);
  const {
    UpdateInformation: _stamped,
    Translations: _translated,
    ...rest
  } = record as Record<string, unknown>;
  return JSON.stringify(rest);
}

const same = (a: unknown, b: unknown) => substance(a) === substance(b);

/** The one part of an install these faults act on; undefined when the install changed nothing. */
export function changedPart(before: CatalogueData, after: CatalogueData): PartRef | undefined {
  let created: PartRef | undefined;
  for (const kind of ORDER) {
    const was = before[kind] as Record<string, unknown>;
    const now = after[kind] as Record<string, unknown>;
    for (const key of Object.keys(now).sort()) {
      if (was[key] === undefined) created ??= { kind, key };
      else if (!same(was[key], now[key])) return { kind, key };
    }
  }
  return created;
}

/** `data` with the part as `from` has it (absent when `from` lacks it). */
function withPartOf(data: CatalogueData, from: CatalogueData, part: PartRef): CatalogueData {
  const copy = structuredClone(data);
  const records = copy[part.kind] as Record<string, unknown>;
  const source = (from[part.kind] as Record<string, unknown>)[part.key];
  if (source === undefined) delete records[part.key];
  else records[part.key] = structuredClone(source);
  return copy;
}

/** The part renamed, as a recalculation that changes what it reads as would. */
function recalculated(data: CatalogueData, part: PartRef): CatalogueData | undefined {
  const record = (data[part.kind] as Record<string, { Name?: unknown } | undefined>)[part.key];
  if (!record || typeof record.Name !== "string") return undefined;
  const copy = structuredClone(data);
  const changed = (copy[part.kind] as Record<string, { Name: string }>)[part.key] as { Name: string };
  changed.Name = `${changed.Name} (recalculated)`;
  return copy;
}

export class InstallFaults {
  private readonly spec: InstallFaultSpec;
  private installs = 0;

  constructor(spec: InstallFaultSpec) {
    this.spec = spec;
  }

  /** The catalogue an install of `before` → `after` leaves now, and later. */
  shape(before: CatalogueData, after: CatalogueData): ShapedInstall {
    this.installs += 1;
    const { installDrop, installLateMs, installChangeMs } = this.spec;
    if (installDrop === null && installLateMs === null && installChangeMs === null) return { data: after };
    const part = changedPart(before, after);
    if (!part) return { data: after };
    if (installDrop === "every" || (installDrop === "first" && this.installs === 1))
      return { data: withPartOf(after, before, part) };
    if (installLateMs !== null)
      return {
        data: withPartOf(after, before, part),
        later: { ms: installLateMs, apply: (current) => withPartOf(current, after, part) },
      };
    if (installChangeMs !== null)
      return { data: after, later: { ms: installChangeMs, apply: (current) => recalculated(current, part) } };
    return { data: after };
  }
}
