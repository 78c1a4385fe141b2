// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is manifest text, not a template.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type PlatformClient } from "../../src/client/client.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import { type DesiredState, loadEnvironment } from "../../src/manifest/index.ts";
import { type FieldChange, planChanges } from "../../src/plan/index.ts";
import { partLine } from "../../src/plan/render/parts.ts";
import { type LiveState, readLiveState } from "../../src/state/index.ts";
import { packageLive } from "../../src/state/kinds/package.ts";
import { readPackageObjects } from "../../src/state/package-objects.ts";
import { ROOT } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * The part-by-part package diff over HTTP: the example's GRC Core package read from demo-dev (the
 * source) and demo-prod (the target). Details are kept only for the objects that differ, and the
 * plan names their parts.
 */

const PASSWORD = "Details#Test2026";
const CONTROLS = demoGuid("controls");
const RISKS = demoGuid("risks");
const FINDINGS = demoGuid("findings");
const POLICIES = demoGuid("policies");
const COMMENTS = demoGuid("comments");

let dev: Emulator;
let prod: Emulator;
let devClient: PlatformClient;
let prodClient: PlatformClient;
let desired: DesiredState;
let live: LiveState;

function client(url: string): PlatformClient {
  const limits = { concurrency: 4, requestsPerSecond: 0 };
  return createClient({ url, instance: "Default", username: "sysadmin", password: PASSWORD, limits });
}

function environment(url: string, extra: string[]): string {
  const auth = "auth: { username: sysadmin, password: '${P}' }";
  return [`url: ${url}`, "instance: Default", auth, ...extra, ""].join("\n");
}

beforeAll(async () => {
  [dev, prod] = await Promise.all([
    startEmulator({ port: 0, seed: "demo-dev", adminPassword: PASSWORD }),
    startEmulator({ port: 0, seed: "demo-prod", adminPassword: PASSWORD }),
  ]);
  [devClient, prodClient] = [client(dev.url), client(prod.url)];
  const dir = await testdir({
    "environments/dev.yaml": environment(dev.url, []),
    "environments/prod.yaml": environment(prod.url, ["packagesFrom: dev"]),
    "manifests/packages.yaml": readFileSync(join(ROOT, "manifests", "packages.yaml"), "utf8"),
  });
  ({ state: desired } = await loadEnvironment(dir, "prod", { variables: { P: PASSWORD } }));
  live = await readLiveState(prodClient, desired, { source: devClient });
});

afterAll(async () => {
  await Promise.all([devClient?.close(), prodClient?.close()]);
  await Promise.all([dev?.close(), prod?.close()]);
});

describe("package details", () => {
  it("are kept for the objects that differ only, on each side that has them", () => {
    const kept = (objects: LiveState["packages"]["objects"] = {}) =>
      Object.entries(objects)
        .filter(([, object]) => object.details)
        .map(([guid]) => guid)
        .sort();
    expect(kept(live.packageSource?.objects)).toEqual([CONTROLS, FINDINGS, RISKS].sort());
    expect(kept(live.packages.objects)).toEqual([CONTROLS, RISKS].sort());
    expect(Object.keys(live.packages.objects)).toEqual(expect.arrayContaining([POLICIES, COMMENTS]));
  });

  it("name fields by name, types in words, other parts by name", () => {
    const controls = live.packageSource?.objects[CONTROLS]?.details ?? {};
    const tested = Object.values(controls).find((d) => d.name === "Last Tested");
    expect(tested).toMatchObject({ parent: "Control", properties: { type: "Date", required: false } });
    const layout = Object.values(controls).find((d) => d.name === "Control Layout");
    expect(layout?.sections?.find((s) => s.name === "Testing")?.fields).toEqual([
      "Last Tested",
      "Test Result",
    ]);
    const comments = Object.values(controls).find((d) => d.name === "Comments");
    expect(comments?.properties["sub-form"]).toBe("Comments");
  });

  it("stay out of the digest, which covers the fingerprints", () => {
    const bare = structuredClone(live);
    for (const side of [bare.packages, bare.packageSource]) {
      for (const object of Object.values(side?.objects ?? {})) delete object.details;
    }
    expect(packageLive.digest(bare)).toBe(packageLive.digest(live));
    expect(live.partDigests.packages).toBe(packageLive.digest(live));
  });

  it("let the plan name every differing part, with severities", () => {
    const plan = planChanges(desired, live, { createdAt: "2026-01-01T00:00:00Z" });
    const fields = plan.changes[0]?.fields ?? [];
    const lines = (name: string) =>
      (fields.find((f) => f.field === name) as FieldChange).parts?.map((p) => partLine(p)) ?? [];
    expect(lines("Application Controls")).toEqual(
      expect.arrayContaining([
        '+ field "Last Tested": added',
        '+ field "Test Result": added',
        '- field "Legacy Control ID": only on the target [critical]',
        '+ event rule "Ineffective control": added',
      ]),
    );
    expect(lines("Application Controls").find((l) => l.startsWith('~ layout "Control Layout"'))).toContain(
      'section "Testing" added with "Last Tested", "Test Result"',
    );
    expect(lines("Application Risk Register")).toEqual([
      '~ event rule "Escalate critical risks": condition "Risk_Score >= 20" → "Risk_Score >= 15" [critical]',
    ]);
    expect(lines("Application Findings")).toContain('+ field "Finding Title": added');
  });

  it("a layout read that fails is a failed read, not a level without a layout", async () => {
    // A 403 is not retried: before, it read as "no layout", so a converged target looked changed.
    prod.faults.script({ path: "/levellayout/level/", action: { status: 403 } });
    await expect(readLiveState(prodClient, desired, { source: devClient })).rejects.toThrow(/403/);
    // A level that has no layout still reads as one without (404 is the answer for that).
    const again = await readLiveState(prodClient, desired, { source: devClient });
    expect(again.packages).toEqual(live.packages);
  });

  it("are built, when deferred, only for the objects chosen once the other side is known", async () => {
    const requests = [CONTROLS, RISKS, POLICIES].map((guid) => ({ guid, type: "Application" as const }));
    const read = await readPackageObjects(devClient, requests, { deferDetails: true });
    expect(Object.keys(read.objects).sort()).toEqual([CONTROLS, RISKS, POLICIES].sort());
    expect(Object.values(read.objects).filter((object) => object.details)).toEqual([]);
    read.describe((object) => object.guid !== POLICIES);
    const described = (guid: string) => read.objects[guid]?.details;
    expect(described(CONTROLS)).toEqual(live.packageSource?.objects[CONTROLS]?.details);
    expect(Object.keys(described(RISKS) ?? {}).sort()).toEqual(
      Object.keys(read.objects[RISKS]?.partFingerprints ?? {}).sort(),
    );
    expect(described(POLICIES)).toBeUndefined();
    // The trees are let go: a second call describes nothing more.
    read.describe(() => true);
    expect(described(POLICIES)).toBeUndefined();
  });
});
