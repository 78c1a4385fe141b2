import { EgpError } from "../errors/index.ts";
import { type Plan, type SensitiveInput, sealedDigest } from "../plan/index.ts";

/** A saved plan whose `${VAR}` values changed since it was made, or can't be checked. */
export class SensitiveChangedError extends EgpError {
  constructor(message: string) {
    super("EGP_PLAN_SENSITIVE_CHANGED", message);
    this.name = "SensitiveChangedError";
  }
}

const placeOf = (entry: Pick<SensitiveInput, "step" | "path">) =>
  `${entry.step}\u0000${JSON.stringify(entry.path)}`;

/**
 * The saved plan with its sealed inputs filled in from a plan derived now, which read each variable
 * again. A value whose keyed digest is not the saved one is refused, naming its reference only, as
 * a stale plan is: the reviewed plan said "this value", and the variable now holds another.
 */
export function unsealSaved(saved: Plan, fresh: Plan, key: string | undefined): Plan {
  if (!saved.sensitive?.length) return saved;
  const freshByPlace = new Map((fresh.sensitive ?? []).map((entry) => [placeOf(entry), entry]));
  const sealing = saved.sealing;
  if (sealing?.keyed && !key)
    throw new SensitiveChangedError(
      `the saved plan ${saved.id} was made with EGP_PLAN_KEY set; set it to the same key to apply it`,
    );
  const changed: string[] = [];
  const sensitive = saved.sensitive.map((entry) => {
    const now = freshByPlace.get(placeOf(entry))?.value;
    if (!now || !sealing || entry.digest === undefined) {
      changed.push(`${entry.reference} (step ${entry.step})`);
      return entry;
    }
    if (sealedDigest(now.reveal(), sealing.salt, sealing.keyed ? key : undefined) !== entry.digest)
      changed.push(`${entry.reference} (step ${entry.step})`);
    return { ...entry, value: now };
  });
  if (changed.length > 0)
    throw new SensitiveChangedError(
      `the saved plan ${saved.id} is stale: the value of ${changed.join(", ")} is not the one it was made with. Run egp plan again.`,
    );
  return { ...saved, sensitive };
}
