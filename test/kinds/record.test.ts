// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is manifest text, not a template.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executePlan, Journal } from "../../src/apply/index.ts";
import { createClient, type PlatformClient } from "../../src/client/client.ts";
import { BUILT_IN_KINDS } from "../../src/compose/kinds.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { loadEnvironment, ManifestError } from "../../src/manifest/index.ts";
import { type Plan, planChanges, recordSteps, renderText } from "../../src/plan/index.ts";
import { readLiveState } from "../../src/state/index.ts";
import { forwardingProxy } from "../helpers/forwarding-proxy.ts";
import { thirdParties } from "../helpers/records-prod.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * Record documents against demo-prod over HTTP, through a proxy that records every request. Its
 * Third Parties application (level Third Party) has Vendor Name (text), Tier (values list: Tier 1,
 * Tier 2, Tier 3) and Contract End Date (date); its one record is Acme Hosting, Tier 1, 2027-06-30.
 */

const PASSWORD = "Records#Test2026";
const logger = pino({ level: "silent" });

interface Seen {
  method: string;
  path: string;
  query: string;
  override: boolean;
  body: string;
}

let prod: Emulator;
let proxy: Awaited<ReturnType<typeof forwardingProxy>>;
let client: PlatformClient;
let stateDir: string;
const seen: Seen[] = [];

function record(url: URL, req: import("node:http").IncomingMessage): false {
  const entry: Seen = {
    method: req.method ?? "GET",
    path: url.pathname,
    query: decodeURIComponent(url.search),
    override: req.headers["x-http-method-override"] !== undefined,
    body: "",
  };
  req.on("data", (chunk: Buffer) => {
    entry.body += chunk.toString("utf8");
  });
  seen.push(entry);
  return false;
}

/** Content writes: a POST that is not a read in disguise, a PUT or a DELETE of `core/content`. */
const contentWrites = () =>
  seen.filter((r) => /\/core\/content\b/i.test(r.path) && r.method !== "GET" && !r.override);

const clientOf = (url: string) =>
  createClient({
    url,
    instance: "Default",
    username: "sysadmin",
    password: PASSWORD,
    limits: { concurrency: 4, requestsPerSecond: 0 },
  });

const repository = (url: string, records: string) =>
  testdir({
    "environments/prod.yaml": [
      `url: ${url}`,
      "instance: Default",
      "auth: { username: sysadmin, password: '${P}' }",
      "",
    ].join("\n"),
    "manifests/third-parties.yaml": records,
  });

const load = async (dir: string) =>
  (await loadEnvironment(dir, "prod", { variables: { P: PASSWORD } })).state;

async function planOf(dir: string, using: PlatformClient = client): Promise<Plan> {
  const desired = await load(dir);
  const live = await readLiveState(using, desired, {});
  return planChanges(desired, live, { createdAt: new Date().toISOString() }, BUILT_IN_KINDS);
}

const THIRD_PARTIES = thirdParties([
  "  - Vendor Name: Acme Hosting",
  "    Tier: Tier 2",
  "    Contract End Date: 2027-06-30",
  "  - Vendor Name: Contoso Cloud",
  "    Tier: Tier 2",
  "    Contract End Date: 2028-01-31",
]);

beforeAll(async () => {
  prod = await startEmulator({ port: 0, seed: "demo-prod", adminPassword: PASSWORD });
  proxy = await forwardingProxy(prod.url, record);
  client = clientOf(proxy.url);
  stateDir = await mkdtemp(join(tmpdir(), "egp-record-state-"));
});

afterAll(async () => {
  await client?.close();
  await proxy?.close();
  await prod?.close();
  if (stateDir) await rm(stateDir, { recursive: true, force: true });
});

describe("Record documents", () => {
  it("validate offline: a missing key and a repeated key are errors at their file:line:col", async () => {
    const dir = await repository(
      "http://127.0.0.1:9",
      thirdParties(["  - Vendor Name: Acme Hosting", "  - Tier: Tier 2", "  - Vendor Name: Acme Hosting"]),
    );
    const loading = load(dir);
    await expect(loading).rejects.toThrow(ManifestError);
    const error = (await load(dir).catch((e: unknown) => e)) as ManifestError;
    expect(error.issues.map((issue) => [issue.line, issue.column, issue.path, issue.message])).toEqual([
      [6, 5, "records[0].records[1]", 'has no value for the key field "Vendor Name"'],
      [7, 18, 'records[0].records[2]["Vendor Name"]', 'the key "Acme Hosting" is also records[0]\'s'],
    ]);
  });

  it("plans one update of the differing field and one create, values by name, from one paged Content API read", async () => {
    seen.length = 0;
    const plan = await planOf(await repository(proxy.url, THIRD_PARTIES));
    expect(plan.changes.map((change) => [change.key, change.action])).toEqual([
      ['Third Parties "Acme Hosting"', "update"],
      ['Third Parties "Contoso Cloud"', "create"],
    ]);
    const [update, create] = plan.changes;
    expect(update?.fields.map((f) => [f.field, f.before, f.after])).toEqual([["Tier", "Tier 1", "Tier 2"]]);
    expect(create?.fields.map((f) => [f.field, f.after])).toEqual([
      ["Vendor Name", "Contoso Cloud"],
      ["Tier", "Tier 2"],
      ["Contract End Date", "2028-01-31"],
    ]);
    const text = renderText(plan);
    expect(text).toContain('~ Record Third Parties "Acme Hosting"');
    expect(text).toContain('+ Record Third Parties "Contoso Cloud"');
    expect(text).toContain('~ Tier: "Tier 1" -> "Tier 2"');
    const reads = seen.filter((r) => r.path.startsWith("/contentapi/"));
    expect(reads).toHaveLength(1);
    expect(reads[0]?.query).toMatch(/\$select=\w+_Id,/);
    expect(contentWrites()).toEqual([]);
  });

  it("applies through content POST and PUT with ids, never names; then plans no changes", async () => {
    const dir = await repository(proxy.url, THIRD_PARTIES);
    const desired = await load(dir);
    const plan = await planOf(dir);
    seen.length = 0;
    const result = await executePlan({
      plan,
      desired,
      clients: new Map([["prod", client]]),
      journal: Journal.open(stateDir, plan, { steps: BUILT_IN_KINDS.steps }),
      stateDir,
      concurrency: 2,
      logger,
      ops: BUILT_IN_KINDS.ops,
    });
    expect(result.failed).toEqual([]);
    const writes = contentWrites();
    expect(writes.map((w) => w.method).sort()).toEqual(["POST", "PUT"]);
    for (const write of writes) {
      expect(write.body).toMatch(/"ValuesListIds":\[\d+\]/);
      expect(write.body).not.toContain("Tier 2");
    }
    expect((await planOf(dir)).changes).toEqual([]);
  });

  it("writes numeric and multi-valued fields, compares the values as a set, and then plans no changes", async () => {
    const risks = [
      "kind: Record",
      "application: Risk Register",
      "key: [Risk Name]",
      "records:",
      "  - Risk Name: Cloud provider outage",
      "    Risk Score: 15",
      "    Category: [Technology, Operational]",
      "",
    ].join("\n");
    const dir = await repository(proxy.url, risks);
    const desired = await load(dir);
    const plan = await planOf(dir);
    expect(plan.changes.map((c) => c.fields.map((f) => [f.field, f.before, f.after]))).toEqual([
      [
        ["Risk Score", 16, 15],
        ["Category", ["Technology"], ["Technology", "Operational"]],
      ],
    ]);
    const result = await executePlan({
      plan,
      desired,
      clients: new Map([["prod", client]]),
      journal: Journal.open(stateDir, plan, { steps: BUILT_IN_KINDS.steps }),
      stateDir,
      concurrency: 2,
      logger,
      ops: BUILT_IN_KINDS.ops,
    });
    expect(result.failed).toEqual([]);
    expect((await planOf(dir)).changes).toEqual([]);
    const reordered = await repository(
      proxy.url,
      risks.replace("[Technology, Operational]", "[Operational, Technology]"),
    );
    expect((await planOf(reordered)).changes).toEqual([]);
  });

  it("a create whose answer is lost finds the record it made by its key, and makes no second one", async () => {
    // Straight to the emulator: the reset is the instance's, not the recording proxy's.
    const direct = clientOf(prod.url);
    const dir = await repository(
      prod.url,
      "kind: Record\napplication: Third Parties\nkey: [Vendor Name]\nrecords:\n  - Vendor Name: Fabrikam Data\n    Tier: Tier 3\n",
    );
    const desired = await load(dir);
    const plan = await planOf(dir, direct);
    expect(plan.steps.map((step) => step.op)).toEqual(["record.create"]);
    prod.faults.script({ method: "POST", path: /\/core\/content$/i, action: { reset: true, after: true } });
    const result = await executePlan({
      plan,
      desired,
      clients: new Map([["prod", direct]]),
      journal: Journal.open(stateDir, plan, { steps: BUILT_IN_KINDS.steps }),
      stateDir,
      concurrency: 2,
      logger,
      ops: BUILT_IN_KINDS.ops,
    });
    expect(result.failed).toEqual([]);
    expect(prod.faults.stats.byKind["reset-after"]).toBe(1);
    const { entitySet, keyAliases } = recordSteps.ops["record.create"].parse(plan.steps[0]?.input);
    const vendors = await direct.contentApi.allRecords(entitySet, { select: keyAliases });
    expect(vendors.filter((record) => record[keyAliases[0] ?? ""] === "Fabrikam Data")).toHaveLength(1);
    expect((await planOf(dir, direct)).changes).toEqual([]);
    await direct.close();
  });

  it("refuses a value name the values list lacks, with the closest name, before any write", async () => {
    const dir = await repository(
      proxy.url,
      THIRD_PARTIES.replace(
        "Tier: Tier 2\n    Contract End Date: 2028",
        "Tier: tier 3\n    Contract End Date: 2028",
      ),
    );
    seen.length = 0;
    const planning = planOf(dir);
    await expect(planning).rejects.toThrow(expect.objectContaining({ code: "EGP_RECORD_REF_UNRESOLVED" }));
    await expect(planOf(dir)).rejects.toThrow(
      /third-parties\.yaml:9:11 .*no value "tier 3" in the values list of "Tier"; did you mean "Tier 3"\?/,
    );
    expect(contentWrites()).toEqual([]);
  });

  it("refuses a key two live records hold, naming both ids, before any write", async () => {
    const levels = await client.metadata.levelsByModule(
      (await client.metadata.applications()).find((app) => app.Name === "Third Parties")?.Id ?? 0,
    );
    const level = levels[0];
    const fields = await client.metadata.fieldDefinitions(level?.Id ?? 0);
    const name = fields.find((field) => field.Name === "Vendor Name");
    const second = await client.content.create({
      LevelId: level?.Id ?? 0,
      FieldContents: { [String(name?.Id)]: { Type: 1, Value: "Acme Hosting", FieldId: name?.Id ?? 0 } },
    });
    const dir = await repository(proxy.url, THIRD_PARTIES);
    seen.length = 0;
    const refused = (await planOf(dir).catch((error: unknown) => error)) as Error & { code?: string };
    expect(refused).toMatchObject({ code: "EGP_RECORD_KEY_AMBIGUOUS" });
    const ids = /content ids (\d+), (\d+)/.exec(refused.message);
    expect(ids?.slice(1).map(Number)).toContain(second);
    expect(ids?.slice(1).map(Number)).toContain(1001);
    expect(refused.message).toMatch(
      /^manifests\/third-parties\.yaml:5:18 .*"Acme Hosting" matches 2 records/,
    );
    expect(contentWrites()).toEqual([]);
  });

  it("refuses the kind where the Content API answers 404 or an HTML page, never reading it as no records", async () => {
    const off = await startEmulator({
      port: 0,
      seed: "demo-prod",
      adminPassword: PASSWORD,
      integrations: false,
    });
    const offClient = clientOf(off.url);
    const html = await forwardingProxy(prod.url, (url, _req, res) => {
      if (!url.pathname.startsWith("/contentapi/")) return false;
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<html><body>Sign in</body></html>");
      return true;
    });
    const htmlClient = clientOf(html.url);
    try {
      await expect(planOf(await repository(off.url, THIRD_PARTIES), offClient)).rejects.toThrow(
        expect.objectContaining({ code: "EGP_RECORD_READ_UNAVAILABLE" }),
      );
      await expect(planOf(await repository(html.url, THIRD_PARTIES), htmlClient)).rejects.toThrow(
        expect.objectContaining({ code: "EGP_RECORD_READ_UNAVAILABLE" }),
      );
    } finally {
      await offClient.close();
      await htmlClient.close();
      await html.close();
      await off.close();
    }
  });
});
