import { Store, type StoreData, type StoreOptions } from "../store.ts";
import { seedDemoCatalogue } from "./demo-catalogue.ts";
import { seedDemoContent } from "./demo-content.ts";
import { seedDemoUsers } from "./demo-users.ts";
import { emptyData, seedFixedFacts } from "./fixed.ts";
import { seedScaleUsers } from "./scale.ts";
import { seedScaleApps } from "./scale-apps.ts";
import { seedScaleRecords } from "./scale-records.ts";

export interface SeedContext {
  instance: string;
  release: string;
  adminPassword: string;
}

export type SeedSpec =
  | { kind: "empty" }
  | { kind: "demo"; variant: "dev" | "prod" }
  | { kind: "scale"; users: number; apps: number; parameters: number; records: number };

/** Parses `empty`, `demo-dev`, `demo-prod` or `scale:users=N,apps=M[,parameters=P][,records=R]`. */
export function parseSeed(name: string): SeedSpec {
  if (name === "empty") return { kind: "empty" };
  if (name === "demo-dev") return { kind: "demo", variant: "dev" };
  if (name === "demo-prod") return { kind: "demo", variant: "prod" };
  const scale = /^scale:(.*)$/.exec(name);
  if (scale) {
    const spec = { kind: "scale" as const, users: 0, apps: 0, parameters: 0, records: 0 };
    for (const part of (scale[1] ?? "").split(",").filter(Boolean)) {
      const match = /^(users|apps|parameters|records)=(\d{1,7})$/.exec(part.trim());
      if (!match)
        throw new Error(
          `Unknown seed option "${part}" in "${name}" (expected users=N, apps=M, parameters=P, records=R)`,
        );
      spec[match[1] as "users" | "apps" | "parameters" | "records"] = Number(match[2]);
    }
    return spec;
  }
  throw new Error(`Unknown seed "${name}" (expected empty, demo-dev, demo-prod or scale:users=N,apps=M)`);
}

export function buildStore(seedName: string, context: SeedContext, options: StoreOptions = {}): Store {
  const spec = parseSeed(seedName);
  const store = new Store(emptyData(context.instance, context.release, seedName), options);
  seedFixedFacts(store, context.adminPassword);
  if (spec.kind === "demo") seedDemoUsers(store, spec.variant);
  if (spec.kind === "demo") seedDemoCatalogue(store, spec.variant);
  if (spec.kind === "demo") seedDemoContent(store, spec.variant);
  if (spec.kind === "scale") seedScaleUsers(store, spec);
  if (spec.kind === "scale") seedScaleApps(store, spec.apps);
  if (spec.kind === "scale") seedScaleRecords(store, spec.records);
  return store;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const recordsOf = (value: unknown, each: (record: Record<string, unknown>) => boolean) =>
  isObject(value) && Object.values(value).every((record) => isObject(record) && each(record));
const named = (record: Record<string, unknown>) =>
  typeof record.Id === "number" && typeof record.Name === "string";

/** Segments that later versions added: absent, or an object of their own shape. */
const LATER_SEGMENTS = ["catalogue", "content", "packages"] as const;

/**
 * Whether a data file's JSON has the state's shape, down to the records every start and login
 * reads, so that a file that is not one fails as such, not with a TypeError halfway through a start.
 */
export function isStoreData(data: unknown): data is StoreData {
  if (!isObject(data) || data.format !== 1) return false;
  if (![data.instance, data.release, data.seed].every((text) => typeof text === "string")) return false;
  if (!isObject(data.counters) || !Object.values(data.counters).every((n) => typeof n === "number"))
    return false;
  const user = (record: Record<string, unknown>) =>
    isObject(record.user) &&
    typeof record.user.Id === "number" &&
    typeof record.user.UserName === "string" &&
    [record.roles, record.groups, record.contacts, record.passwordHashes].every(Array.isArray) &&
    typeof record.salt === "string";
  return (
    recordsOf(data.users, user) &&
    recordsOf(data.securityParameters, named) &&
    recordsOf(data.roles, named) &&
    recordsOf(data.groups, named) &&
    recordsOf(data.tasks, () => true) &&
    LATER_SEGMENTS.every((segment) => data[segment] === undefined || isObject(data[segment]))
  );
}

export function restoreStore(data: StoreData, options: StoreOptions = {}): Store {
  if (data?.format !== 1) throw new Error("The data file is not an egp emulator snapshot (format 1)");
  return new Store(data, options);
}
