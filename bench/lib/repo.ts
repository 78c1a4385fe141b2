import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/*
 * A generated manifests repository for benches: environment files pointing at emulators over HTTP,
 * N users, N security parameters and Package documents. Names are zero-padded so that they sort.
 */

export const BENCH_PASSWORD_VARIABLE = "EGP_BENCH_PASSWORD";

export interface EnvironmentSpec {
  url: string;
  packagesFrom?: string;
  concurrency: number;
  requestsPerSecond?: number;
}

export interface PackageSpec {
  name: string;
  /** Application names, resolved on the source. */
  applications: string[];
}

export interface RepoSpec {
  environments: Record<string, EnvironmentSpec>;
  users?: number;
  /** Prefix of the generated user names, e.g. `bench` → `bench0001`. */
  userPrefix?: string;
  parameters?: number;
  packages?: PackageSpec[];
}

const pad = (n: number, width: number) => String(n).padStart(width, "0");

// Role and group ids of the fixed seed facts (DESIGN §4.3), the same on every emulator seed.
const ROLES = "roles: { System Administrator: 1, General User: 2 }";
const GROUPS = "groups: { Everyone: 1, Administrators: 2 }";

/**
 * An environment file for an emulator at `url`, logged into as sysadmin with the bench's password,
 * with the seed's group ids and these limits; `extra` lines (packagesFrom, a roles map) last.
 */
export function benchEnvironmentFile(
  url: string,
  limits: { concurrency: number; requestsPerSecond: number },
  extra: readonly string[] = [],
): string {
  return [
    `url: ${url}`,
    "instance: Default",
    `auth: { username: sysadmin, password: '\${${BENCH_PASSWORD_VARIABLE}}' }`,
    GROUPS,
    `limits: { concurrency: ${limits.concurrency}, requestsPerSecond: ${limits.requestsPerSecond} }`,
    ...extra,
    "",
  ].join("\n");
}

/** The Package document `Everything` of these applications. */
export function everythingPackage(applications: readonly string[]): string {
  const objects = applications.map((name) => `  - application: ${name}`);
  return ["kind: Package", "name: Everything", "objects:", ...objects, ""].join("\n");
}

function environmentFile(spec: EnvironmentSpec): string {
  const limits = { concurrency: spec.concurrency, requestsPerSecond: spec.requestsPerSecond ?? 1000 };
  return benchEnvironmentFile(spec.url, limits, [
    ...(spec.packagesFrom ? [`packagesFrom: ${spec.packagesFrom}`] : []),
    ROLES,
  ]);
}

function usersFile(count: number, prefix: string): string {
  const documents: string[] = [];
  for (let i = 1; i <= count; i++) {
    const n = pad(i, 4);
    documents.push(
      [
        "kind: User",
        `userName: ${prefix}${n}`,
        `firstName: First${n}`,
        `lastName: ${prefix[0]?.toUpperCase()}${prefix.slice(1)}${n}`,
        `title: Analyst ${i % 7}`,
        `department: Department ${i % 11}`,
        "status: active",
        "roles: [General User]",
        "",
      ].join("\n"),
    );
  }
  return documents.join("---\n");
}

function parametersFile(count: number): string {
  const documents: string[] = [];
  for (let i = 1; i <= count; i++) {
    documents.push(
      [
        "kind: SecurityParameter",
        `name: Bench Parameter ${pad(i, 3)}`,
        `description: Generated parameter ${i}.`,
        `minPasswordLength: ${10 + (i % 6)}`,
        "numericCharsRequired: 1",
        `maximumFailedLoginAttempts: ${3 + (i % 4)}`,
        `lockoutPeriod: { value: ${15 + i}, unit: minutes }`,
        `sessionTimeout: { value: ${20 + i}, unit: minutes }`,
        "",
      ].join("\n"),
    );
  }
  return documents.join("---\n");
}

function packagesFile(packages: PackageSpec[]): string {
  return packages
    .map((p) =>
      [
        "kind: Package",
        `name: ${p.name}`,
        "preparedBy: egp bench",
        "install: { method: createAndUpdate, layout: keep }",
        "objects:",
        ...p.applications.map((name) => `  - application: ${name}`),
        "",
      ].join("\n"),
    )
    .join("---\n");
}

/** Writes the repository into `dir` (which must exist or be creatable). */
export function writeRepo(dir: string, spec: RepoSpec): void {
  mkdirSync(join(dir, "environments"), { recursive: true });
  mkdirSync(join(dir, "manifests"), { recursive: true });
  for (const [name, environment] of Object.entries(spec.environments))
    writeFileSync(join(dir, "environments", `${name}.yaml`), environmentFile(environment));
  if (spec.users)
    writeFileSync(join(dir, "manifests/users.yaml"), usersFile(spec.users, spec.userPrefix ?? "bench"));
  if (spec.parameters)
    writeFileSync(join(dir, "manifests/security-parameters.yaml"), parametersFile(spec.parameters));
  if (spec.packages?.length) writeFileSync(join(dir, "manifests/packages.yaml"), packagesFile(spec.packages));
}
