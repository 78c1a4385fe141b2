import type { EnvironmentConfig } from "./environment.ts";
import type { DesiredDocument } from "./kinds/index.ts";
import { isAbsent, type Kind, keyOf } from "./kinds/kind.ts";
import type { Reporter } from "./report.ts";

/** A normalized document in one environment, with the reporter that points into its file. */
export interface PlacedDocument {
  kind: Kind<DesiredDocument>;
  desired: DesiredDocument;
  report: Reporter;
}

export interface EnvironmentRuleContext {
  environment: EnvironmentConfig;
  documents: readonly PlacedDocument[];
}

/** A rule over all the documents that apply to one environment. */
export type EnvironmentRule = (context: EnvironmentRuleContext) => void;

/**
 * Security parameters every instance has (DESIGN §4.3 fixed facts), so a user may name them
 * without a manifest for them.
 */
export const PLATFORM_SECURITY_PARAMETERS = [
  "Default Administrative User",
  "General User Parameter",
  "Services Parameter",
] as const;

function where(report: Reporter, field: string): string {
  const { file, line, column } = report.document.locate([field]);
  return `${file}:${line}:${column}`;
}

/** Two documents of a kind with the same key: an error at the second, naming the first. */
const keysAreUnique: EnvironmentRule = ({ environment, documents }) => {
  const first = new Map<string, PlacedDocument>();
  for (const placed of documents) {
    const key = `${placed.desired.kind}\u0000${keyOf(placed.kind, placed.desired)}`;
    const earlier = first.get(key);
    if (!earlier) {
      first.set(key, placed);
      continue;
    }
    const field = placed.kind.key.field;
    const also = where(earlier.report, field);
    placed.report.error(
      [field],
      field === "kind"
        ? `a second ${placed.desired.kind} for environment ${environment.name} (the first is at ${also})`
        : `${placed.desired.kind} ${placed.report.quote([field])} is also defined at ${also}`,
    );
  }
};

const oneDefaultSecurityParameter: EnvironmentRule = ({ environment, documents }) => {
  let first: PlacedDocument | undefined;
  for (const placed of documents) {
    const { desired } = placed;
    if (desired.kind !== "SecurityParameter" || isAbsent(desired) || desired.fields.Default !== true)
      continue;
    if (!first) first = placed;
    else
      placed.report.error(
        ["default"],
        `a second default security parameter for environment ${environment.name} (the first is at ${where(first.report, "default")})`,
      );
  }
};

/** Warning only: the live instance may have a parameter that no manifest describes. */
const securityParametersAreKnown: EnvironmentRule = ({ environment, documents }) => {
  const names = new Set<string>(PLATFORM_SECURITY_PARAMETERS.map((name) => name.toLowerCase()));
  for (const { desired } of documents)
    if (desired.kind === "SecurityParameter" && !isAbsent(desired)) names.add(desired.name.toLowerCase());
  for (const { desired, report } of documents) {
    if (desired.kind !== "User" || isAbsent(desired) || desired.securityParameter === undefined) continue;
    if (names.has(desired.securityParameter.toLowerCase())) continue;
    report.warning(
      ["securityParameter"],
      `no manifest for environment ${environment.name} defines ${report.quote(["securityParameter"])}; the instance must already have it`,
    );
  }
};

/** Deactivating or locking the account egp logs in as would lock egp out mid-apply. */
const serviceAccountStaysActive: EnvironmentRule = ({ environment, documents }) => {
  const self = environment.auth.username.toLowerCase();
  for (const { desired, report } of documents) {
    if (desired.kind !== "User" || isAbsent(desired) || desired.key !== self) continue;
    const status = desired.fields.AccountStatus;
    if (status !== undefined && status !== 1)
      report.error(
        ["status"],
        `this is the account egp logs in as to ${environment.name}; it must stay active`,
      );
  }
};

export const ENVIRONMENT_RULES: readonly EnvironmentRule[] = [
  keysAreUnique,
  oneDefaultSecurityParameter,
  securityParametersAreKnown,
  serviceAccountStaysActive,
];
