import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { catalogueOf } from "../../src/emulator/catalogue/model.ts";
import { buildStore } from "../../src/emulator/seeds/index.ts";
import { type DesiredState, loadRepository } from "../../src/manifest/index.ts";

/* The project's own example repository (environments/ and manifests/ at the root). */

const ROOT = join(import.meta.dirname, "..", "..");

async function exampleStates(): Promise<Map<string, DesiredState>> {
  const result = await loadRepository(ROOT, { variables: {} });
  if (!result.ok) throw new Error(result.errors.map((e) => `${e.file}:${e.line} ${e.message}`).join("\n"));
  expect(result.warnings).toEqual([]);
  return new Map(result.states.map((state) => [state.environment.name, state]));
}

function seedOf(state: DesiredState): string {
  if (state.environment.endpoint.kind !== "embedded")
    throw new Error("the example runs on embedded emulators");
  return state.environment.endpoint.seed;
}

describe("the example repository", () => {
  it("is valid without any variable set, on embedded demo-dev and demo-prod", async () => {
    const states = await exampleStates();
    expect([...states.keys()]).toEqual(["local-dev", "local-prod"]);
    expect(states.get("local-dev")?.environment.endpoint).toEqual({
      kind: "embedded",
      seed: "demo-dev",
      dataFile: join(ROOT, ".egp", "local-dev.json"),
    });
    expect(seedOf(states.get("local-prod")!)).toBe("demo-prod");
    expect(states.get("local-prod")?.packagesFrom?.name).toBe("local-dev");
  });

  it("scopes the Chief Risk Officer to production and promotes the package into production only", async () => {
    const states = await exampleStates();
    const users = (name: string) => states.get(name)?.users.map((user) => user.key);
    expect(users("local-dev")).not.toContain("hwright");
    expect(users("local-prod")).toContain("hwright");
    expect(states.get("local-dev")?.packages).toEqual([]);
    expect(states.get("local-prod")?.packages.map((p) => p.name)).toEqual(["GRC Core"]);
  });

  it("maps roles to the ids the demo seeds give them, and leaves groups to the instance's list", async () => {
    for (const state of (await exampleStates()).values()) {
      const store = buildStore(seedOf(state), { instance: "Default", release: "6.14.0", adminPassword: "x" });
      const byName = (records: Record<string, { Id: number; Name: string }>) =>
        Object.fromEntries(Object.values(records).map((record) => [record.Name, record.Id]));
      expect(state.environment.roles, state.environment.name).toEqual(byName(store.data.roles));
      expect(state.environment.groups, state.environment.name).toEqual({});
      expect(state.environment.groupsFromInstance, state.environment.name).toBe(true);
      const named = state.users.flatMap((user) => user.groupNames?.map((g) => g.name) ?? []);
      for (const name of named) expect(Object.keys(byName(store.data.groups))).toContain(name);
    }
  });

  it("names objects of the demo catalogue, by name and by GUID", async () => {
    const state = (await exampleStates()).get("local-prod")!;
    const source = buildStore("demo-dev", { instance: "Default", release: "6.14.0", adminPassword: "x" });
    const catalogue = catalogueOf(source);
    const applications = catalogue
      .all("modules")
      .filter((m) => m.Type === "Application")
      .map((m) => m.Name);
    for (const object of state.packages[0]!.objects) {
      if (object.by === "name") expect(applications).toContain(object.name);
      else if (object.type === "GlobalReport")
        expect(catalogue.byGuid("reports", object.guid)?.Name).toBeTruthy();
      else expect(catalogue.byGuid("modules", object.guid)?.Type).toBe(object.type);
    }
  });
});
