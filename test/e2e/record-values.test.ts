import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { DEMO_SENSITIVE_TEXT } from "../../src/emulator/seeds/demo-content.ts";
import { egp, environmentFile, lines } from "../helpers/cli.ts";
import { forwardingProxy } from "../helpers/forwarding-proxy.ts";
import { thirdParties } from "../helpers/records-prod.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * Record documents writing users/groups and the other field types, planned and applied against
 * demo-prod's Third Parties (Acme Hosting: owner anguyen) through a proxy that keeps the bodies egp
 * writes: the plan shows names, the content POSTs and PUTs carry the platform's ids.
 */

const PASSWORD = "Password1!";
const ENV = { EGP_TEST_PASSWORD: PASSWORD };

const THIRD_PARTIES = thirdParties([
  "  - Vendor Name: Acme Hosting",
  "    Relationship Owner: { users: [anguyen, cmendes], groups: [Risk Owners] }",
  "    Website:",
  "      - { name: Status, url: https://status.acme-hosting.example.com }",
  "      - { name: Acme Hosting, url: https://acme-hosting.example.com }",
  "  - Vendor Name: Contoso Cloud",
  "    Tier: Tier 2",
  "    Relationship Owner: { groups: [Auditors] }",
  "    Website: [{ name: Contoso, url: https://contoso.example }]",
  "    Egress IP Address: 198.51.100.7",
]);

const started: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((server) => server.close()));
});

interface Written {
  method: string;
  path: string;
  body: string;
}

/** demo-prod behind a proxy that records each content write's body, and a repository pointing at the proxy. */
async function prodWith(manifest: string, extra: Record<string, string> = {}) {
  const prod: Emulator = await startEmulator({ port: 0, seed: "demo-prod", adminPassword: PASSWORD });
  started.push(prod);
  const written: Written[] = [];
  const proxy = await forwardingProxy(prod.url, (url, req) => {
    if (req.method !== "POST" && req.method !== "PUT") return false;
    if (req.headers["x-http-method-override"]) return false;
    if (!/\/core\/content(\/attachment|\/multipartattachment)?$/i.test(url.pathname)) return false;
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () =>
      written.push({ method: req.method ?? "", path: url.pathname, body: Buffer.concat(chunks).toString() }),
    );
    return false;
  });
  started.push(proxy);
  const dir = await testdir({
    "environments/prod.yaml": environmentFile(proxy.url),
    "manifests/third-parties.yaml": manifest,
    ...extra,
  });
  return { dir, written };
}

const plan = (dir: string) => egp(["plan", "--env", "prod", "--dir", dir], { env: ENV });

describe("Record documents with users/groups, external links and the other field types", () => {
  it("plans by name, writes ids, and then plans no changes", async () => {
    const { dir, written } = await prodWith(THIRD_PARTIES);
    const planned = await plan(dir);
    expect(planned.stderr).toBe("");
    expect(planned.code).toBe(0);
    expect(planned.stdout).toContain(
      '~ Record Third Parties "Acme Hosting"\n      ~ Relationship Owner: {"users":["anguyen"]} -> {"users":["anguyen","cmendes"],"groups":["Risk Owners"]}',
    );
    expect(planned.stdout).toContain(
      '~ Website: [{"name":"Acme Hosting","url":"https://acme-hosting.example.com"}] -> [{"name":"Status","url":"https://status.acme-hosting.example.com"},{"name":"Acme Hosting","url":"https://acme-hosting.example.com"}]',
    );
    expect(planned.stdout).toContain('+ Record Third Parties "Contoso Cloud"');
    expect(planned.stdout).toContain('Relationship Owner: {"groups":["Auditors"]}');
    expect(planned.stdout).toContain("Plan: 1 to add, 1 to change, 0 to destroy");

    const applied = await egp(["apply", "--env", "prod", "--yes", "--dir", dir], { env: ENV });
    expect(applied.stderr).toBe("");
    expect(applied.code).toBe(0);
    const bodies = written.filter((write) => /\/core\/content$/i.test(write.path));
    expect(bodies.map((write) => write.method).sort()).toEqual(["POST", "PUT"]);
    for (const { body } of bodies) {
      expect(body).not.toMatch(/anguyen|cmendes|Risk Owners|Auditors/);
      expect(body).toMatch(/"UserList":\[(\{"Id":\d+\},?)*\],"GroupList":\[\{"Id":\d+\}\]/);
      expect(body).toMatch(/"Value":\[\{"Name":"[^"]+","URL":"https:\/\/[^"]+"\}/);
    }

    const again = await plan(dir);
    expect(again.stderr).toBe("");
    expect(again.stdout).toContain("No changes.");
  });

  it("exits 1 with EGP_RECORD_REF_UNRESOLVED at the field for a user the instance lacks, writing nothing", async () => {
    const manifest = THIRD_PARTIES.replace("users: [anguyen, cmendes]", "users: [anguyen, cmendez]");
    const { dir, written } = await prodWith(manifest);
    const refused = await plan(dir);
    expect(refused.code).toBe(1);
    expect(lines(refused.stderr)).toEqual([
      'egp: EGP_RECORD_REF_UNRESOLVED manifests/third-parties.yaml:6:25 records[0].records[0]["Relationship Owner"]: no user "cmendez" on the instance (for "Relationship Owner"); did you mean "cmendes"?',
    ]);
    expect(written).toEqual([]);
  });

  it("exits 1 with EGP_PLAN_INVALID at the field for an IP address that is none", async () => {
    const { dir, written } = await prodWith(THIRD_PARTIES.replace("198.51.100.7", "198.51.100.700"));
    const refused = await plan(dir);
    expect(refused.code).toBe(1);
    expect(lines(refused.stderr)).toEqual([
      expect.stringMatching(
        /^egp: EGP_PLAN_INVALID manifests\/third-parties\.yaml:14:24 .*an IP address field takes an IPv4 or IPv6 address, not "198\.51\.100\.700"$/,
      ),
    ]);
    expect(written).toEqual([]);
  });

  it("compares attachments by sha256, uploads a changed file, sets the field to the new ids, then plans no changes", async () => {
    const risks = (files: string) =>
      [
        "kind: Record",
        "application: Risk Register",
        "key: [Risk Name]",
        "records:",
        "  - Risk Name: Cloud provider outage",
        `    Supporting Documents: [${files}]`,
        "",
      ].join("\n");
    const { dir, written } = await prodWith(THIRD_PARTIES, {
      "manifests/risks.yaml": risks("docs/call-tree.txt"),
      "manifests/docs/call-tree.txt": DEMO_SENSITIVE_TEXT,
      "manifests/docs/runbook.txt": "Fail over to the secondary region.\n",
    });
    const same = await plan(dir);
    expect(same.stderr).toBe("");
    expect(same.stdout).not.toContain("Cloud provider outage");

    await writeFile(join(dir, "manifests/risks.yaml"), risks("docs/call-tree.txt, docs/runbook.txt"));
    const planned = await plan(dir);
    expect(planned.stdout).toContain(
      '~ Record Risk Register "Cloud provider outage"\n      ~ Supporting Documents: ["bcp-call-tree.txt"] -> ["docs/call-tree.txt","docs/runbook.txt"]',
    );
    expect(planned.stdout).not.toContain(DEMO_SENSITIVE_TEXT.trim().split("\n")[0] as string);
    const applied = await egp(["apply", "--env", "prod", "--yes", "--dir", dir], { env: ENV });
    expect(applied.stderr).toBe("");
    expect(applied.code).toBe(0);
    const uploads = written.filter((write) => /attachment$/i.test(write.path));
    expect(uploads).toHaveLength(1);
    expect(uploads[0]?.body).toContain("runbook.txt");
    const put = written.find((write) => write.method === "PUT" && write.body.includes('"Type":11'));
    // The live attachment whose bytes call-tree.txt has is kept, by id; the runbook is the new one.
    expect(put?.body).toMatch(/"Value":\[\d+,\d+\]/);

    const again = await plan(dir);
    expect(again.stderr).toBe("");
    expect(again.stdout).not.toContain("Cloud provider outage");
  });

  it("exits 1 with EGP_PLAN_INVALID at the field for an attachment file the repository lacks", async () => {
    const manifest = [
      "kind: Record",
      "application: Risk Register",
      "key: [Risk Name]",
      "records:",
      "  - Risk Name: Cloud provider outage",
      "    Supporting Documents: [docs/missing.pdf]",
      "",
    ].join("\n");
    const { dir, written } = await prodWith(THIRD_PARTIES, { "manifests/risks.yaml": manifest });
    const refused = await plan(dir);
    expect(refused.code).toBe(1);
    expect(lines(refused.stderr)).toEqual([
      expect.stringMatching(
        /^egp: EGP_PLAN_INVALID manifests\/risks\.yaml:6:27 .*"Supporting Documents": docs\/missing\.pdf: no such file in the repository \(manifests\/docs\/missing\.pdf\)$/,
      ),
    ]);
    expect(written).toEqual([]);
  });

  it("writes sub-form rows inline: keeps the row that matches, creates the new one, then plans no changes", async () => {
    const manifest = [
      "kind: Record",
      "application: Risk Register",
      "key: [Risk Name]",
      "records:",
      "  - Risk Name: Cloud provider outage",
      "    Comments:",
      "      - Comment Text: Failover test planned for Q2 with the hosting team.",
      "        Commented By: { users: [anguyen] }",
      "      - Comment Text: Failover tested; recovery took 40 minutes.",
      "        Commented By: { users: [cmendes] }",
      "        Comment Date: 2026-11-30",
      "",
    ].join("\n");
    const { dir, written } = await prodWith(THIRD_PARTIES, { "manifests/risks.yaml": manifest });
    const planned = await plan(dir);
    expect(planned.stderr).toBe("");
    expect(planned.stdout).toContain(
      '~ Record Risk Register "Cloud provider outage"\n      ~ Comments: [{"Comment Text":"Failover test planned for Q2 with the hosting team.","Commented By":{"users":["anguyen"]},"Comment Date":"2026-01-20"}] ->',
    );
    const applied = await egp(["apply", "--env", "prod", "--yes", "--dir", dir], { env: ENV });
    expect(applied.stderr).toBe("");
    expect(applied.code).toBe(0);
    const row = written.find((write) => write.method === "POST" && write.body.includes("recovery took"));
    expect(row?.body).toMatch(/"SubformFieldId":\d+/);
    expect(row?.body).not.toContain("cmendes");
    const put = written.find((write) => write.method === "PUT" && write.body.includes('"Type":24'));
    expect(put?.body).toMatch(/"Type":24,"Value":\[\d+,\d+\]/);

    const again = await plan(dir);
    expect(again.stderr).toBe("");
    expect(again.stdout).not.toContain("Cloud provider outage");
  });
});
