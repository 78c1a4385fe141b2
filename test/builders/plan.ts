import { parameter, userDefaults } from "../../src/emulator/seeds/fixed.ts";
import type {
  DesiredPackage,
  DesiredSecurityParameter,
  DesiredState,
  DesiredUser,
  EnvironmentConfig,
} from "../../src/manifest/index.ts";
import { NO_PRUNING, Secret } from "../../src/manifest/index.ts";
import type { LivePackageObject, LiveState, LiveUser } from "../../src/state/live-state.ts";
import type { SecurityParameter, User } from "../../src/wire/index.ts";

/*
 * Small builders for the planner's inputs (changesets' FakeFullState): each takes only what a test
 * cares about and fills the rest with a plausible default.
 */

const at = (line: number) => ({ file: "manifests/test.yaml", line, column: 1 });

export function environment(name = "prod", extra: Partial<EnvironmentConfig> = {}): EnvironmentConfig {
  return {
    name,
    file: `environments/${name}.yaml`,
    source: { file: `environments/${name}.yaml`, line: 1, column: 1 },
    endpoint: { kind: "http", url: "https://grc.example.com" },
    instance: "Production",
    auth: { username: "svc_gitops", domain: "", password: new Secret("s3cret-Pa55"), scheme: "Platform" },
    tls: { insecure: false },
    roles: { "System Administrator": 1, "General User": 2, "Risk Manager": 17 },
    groups: { Everyone: 1, Administrators: 2, "Risk Owners": 42 },
    domains: {},
    limits: { concurrency: 4, requestsPerSecond: 10 },
    waits: { jobMs: 3_600_000, verifyMs: 3_600_000 },
    ...extra,
  } as EnvironmentConfig;
}

export function desired(parts: Partial<DesiredState> = {}): DesiredState {
  return {
    environment: environment(),
    securityParameters: [],
    records: [],
    users: [],
    packages: [],
    prune: NO_PRUNING,
    absent: [],
    digest: "manifest-digest",
    files: [],
    ...parts,
  };
}

export function desiredUser(userName: string, parts: Partial<DesiredUser> = {}): DesiredUser {
  return {
    kind: "User",
    key: userName.toLowerCase(),
    userName,
    fields: { FirstName: "Jane", LastName: "Doe" },
    source: at(1),
    ...parts,
  };
}

export function desiredParameter(
  name: string,
  fields: DesiredSecurityParameter["fields"] = {},
): DesiredSecurityParameter {
  return { kind: "SecurityParameter", name, fields, source: at(2) };
}

export function desiredPackage(
  name: string,
  applications: string[],
  extra: Partial<DesiredPackage> = {},
): DesiredPackage {
  const install = {
    method: "createAndUpdate",
    layout: "keep",
    translations: "none",
    InstallMethod: 2,
    InstallOption: 1,
    TranslationOption: 0,
    assumed: [],
  } as const;
  return {
    kind: "Package",
    name,
    objects: applications.map((app) => ({
      by: "name" as const,
      type: "Application" as const,
      name: app,
      install: { ...install, assumed: [] },
      source: at(3),
    })),
    install: { ...install, assumed: [] },
    inactivateUnusedFields: false,
    prefixInactivatedFields: null,
    snapshot: true,
    source: at(3),
    ...extra,
  } as DesiredPackage;
}

export function liveUser(
  id: number,
  userName: string,
  fields: Partial<User> = {},
  extra: Partial<LiveUser> = {},
): LiveUser {
  return {
    user: userDefaults(id, {
      FirstName: "Jane",
      LastName: "Doe",
      DisplayName: null,
      UserName: userName,
      ...fields,
    }),
    contacts: [],
    groups: [],
    ...extra,
  };
}

/** A live parameter with the emulator's defaults (the platform's, as far as the seed tells). */
export function liveParameter(
  id: number,
  name: string,
  fields: Partial<SecurityParameter> = {},
): SecurityParameter {
  return parameter(id, { GUID: `guid-${id}`, Name: name, ...fields });
}

export function packageObject(
  guid: string,
  name: string,
  fingerprint: string,
  parts: Record<string, string> = {},
): LivePackageObject {
  return {
    guid,
    type: "Application",
    name,
    fingerprint,
    parts: { levels: 1, fields: Object.keys(parts).length },
    partFingerprints: parts,
  };
}

export function live(parts: Partial<LiveState> = {}): LiveState {
  return {
    environment: "prod",
    records: [],
    securityParameters: [
      liveParameter(1, "Default Administrative User"),
      liveParameter(2, "General User Parameter", { Default: true }),
    ],
    users: [liveUser(1, "svc_gitops", { FirstName: "Service", LastName: "Account" })],
    groupsRead: [1, 2, 42],
    packages: { objects: {}, applicationsByName: {} },
    digest: "live-digest",
    partDigests: { securityParameters: "p", users: "u", packages: "k", records: "r" },
    ...parts,
  };
}

export const CREATED_AT = "2026-11-21T12:00:00.000Z";
