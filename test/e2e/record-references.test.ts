import type { IncomingMessage } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { egp, environmentFile, lines } from "../helpers/cli.ts";
import { forwardingProxy } from "../helpers/forwarding-proxy.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * Cross-reference and related-records fields by key, from the built CLI against demo-prod through
 * a proxy that records every request. Its Controls application has Mitigated Risks (related
 * records of the Risk Register) and Policies (a cross-reference to Policies); "Quarterly user
 * access review" (1003) mitigates "Cloud provider outage" (1002); "AC-2 Account management" (1004)
 * references the "Information Security Policy" (1005); "Privileged access misuse" is 1008, and the
 * seed's last record 1011.
 */

const PASSWORD = "Password1!";
const ENV = { EGP_TEST_PASSWORD: PASSWORD };

interface Seen {
  method: string;
  path: string;
  override: boolean;
  body: string;
}

const CONTROLS = [
  "kind: Record",
  "application: Controls",
  "key: [Control Name]",
  "keys: { Risk Register: [Risk Name], Policies: [Policy Name] }",
  "records:",
  "  - Control Name: Quarterly user access review",
  "    Mitigated Risks: [Cloud provider outage, Privileged access misuse]",
  "    Policies: Information Security Policy",
  "",
].join("\n");

const started: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((server) => server.close()));
});

async function prodWith(manifests: Record<string, string>) {
  const prod: Emulator = await startEmulator({ port: 0, seed: "demo-prod", adminPassword: PASSWORD });
  started.push(prod);
  const seen: Seen[] = [];
  const proxy = await forwardingProxy(prod.url, (url: URL, req: IncomingMessage) => {
    const entry: Seen = {
      method: req.method ?? "GET",
      path: url.pathname,
      override: req.headers["x-http-method-override"] !== undefined,
      body: "",
    };
    req.on("data", (chunk: Buffer) => {
      entry.body += chunk.toString("utf8");
    });
    seen.push(entry);
    return false;
  });
  started.unshift(proxy);
  const files: Record<string, string> = { "environments/prod.yaml": environmentFile(proxy.url) };
  for (const [name, text] of Object.entries(manifests)) files[`manifests/${name}`] = text;
  const dir = await testdir(files);
  /** Content writes: a POST that is not a read in disguise, a PUT or a DELETE of `core/content`. */
  const writes = () =>
    seen.filter((r) => /\/core\/content\b/i.test(r.path) && r.method !== "GET" && !r.override);
  return { dir, seen, writes };
}

const plan = (dir: string) => egp(["plan", "--env", "prod", "--dir", dir], { env: ENV });
const apply = (dir: string) => egp(["apply", "--env", "prod", "--yes", "--dir", dir], { env: ENV });

describe("Record references by key", () => {
  it("plans related records and a cross-reference by key, writes content ids, then plans no changes", async () => {
    const { dir, writes, seen } = await prodWith({ "controls.yaml": CONTROLS });
    const planned = await plan(dir);
    expect(planned.stderr).toBe("");
    expect(planned.code).toBe(0);
    expect(planned.stdout).toContain(
      [
        '~ Record Controls "Quarterly user access review"',
        '      ~ Mitigated Risks: Risk Register "Cloud provider outage" -> [Risk Register "Cloud provider outage", Risk Register "Privileged access misuse"]',
        '      ~ Policies: [] -> Policies "Information Security Policy"',
      ].join("\n"),
    );
    expect(planned.stdout).not.toMatch(/\b100\d\b/);
    // The referenced applications' records are read once each, in pages, with their key fields only.
    const reads = seen.filter((r) => r.path.startsWith("/contentapi/"));
    expect(reads.map((r) => r.path)).toEqual([
      "/contentapi/Control",
      "/contentapi/Risk",
      "/contentapi/Policy",
    ]);

    const applied = await apply(dir);
    expect(applied.stderr).toBe("");
    expect(applied.code).toBe(0);
    const [put, ...more] = writes();
    expect(more).toEqual([]);
    expect(put?.method).toBe("PUT");
    const body = put?.body ?? "";
    const values = Object.values(
      (JSON.parse(body) as { Content: { FieldContents: Record<string, { Type: number; Value: unknown }> } })
        .Content.FieldContents,
    );
    expect(values.map((value) => [value.Type, value.Value])).toEqual([
      [23, [1002, 1008]],
      [9, [{ ContentId: 1005, LevelId: expect.any(Number) }]],
    ]);
    const again = await plan(dir);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("No changes.");
  });

  it("refuses an unknown referenced key with EGP_RECORD_REF_UNRESOLVED at its position, writing nothing", async () => {
    const { dir, writes } = await prodWith({
      "controls.yaml": CONTROLS.replace("Privileged access misuse", "Privileged acess misuse"),
    });
    const refused = await apply(dir);
    expect(refused.code).toBe(1);
    expect(lines(refused.stderr)).toEqual([
      'egp: EGP_RECORD_REF_UNRESOLVED manifests/controls.yaml:7:22 records[0].records[0]["Mitigated Risks"]: no "Risk Register" record has the key "Privileged acess misuse" on prod, and this plan creates none; did you mean "Privileged access misuse"?',
    ]);
    expect(writes()).toEqual([]);
  });

  it("gives a control the id of a risk the same apply creates", async () => {
    const { dir, writes } = await prodWith({
      "controls.yaml": [
        "kind: Record",
        "application: Controls",
        "key: [Control Name]",
        "records:",
        "  - Control Name: Quarterly user access review",
        "    Mitigated Risks: [Cloud provider outage, Vendor lock-in]",
        "",
      ].join("\n"),
      "risks.yaml": [
        "kind: Record",
        "application: Risk Register",
        "key: [Risk Name]",
        "records:",
        "  - Risk Name: Vendor lock-in",
        "",
      ].join("\n"),
    });
    const planned = await plan(dir);
    expect(planned.code).toBe(0);
    expect(planned.stdout).toContain('+ Record Risk Register "Vendor lock-in"');
    expect(planned.stdout).toContain(
      '~ Mitigated Risks: Risk Register "Cloud provider outage" -> [Risk Register "Cloud provider outage", Risk Register "Vendor lock-in"]',
    );
    const applied = await apply(dir);
    expect(applied.stderr).toBe("");
    expect(applied.code).toBe(0);
    const [post, put] = writes();
    expect([post?.method, put?.method]).toEqual(["POST", "PUT"]);
    const answered = await plan(dir);
    expect(answered.stdout).toContain("No changes.");
    const values = Object.values(
      (JSON.parse(put?.body ?? "{}") as { Content: { FieldContents: Record<string, { Value: unknown }> } })
        .Content.FieldContents,
    );
    const ids = values[0]?.Value as number[];
    expect(ids[0]).toBe(1002);
    // The seed's last record is 1011: the risk this apply made.
    expect(ids[1]).toBeGreaterThan(1011);
  });
});
