import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import { useClientEmulator } from "./helpers/client.ts";

/*
 * The same calls against a release 6.14 instance (`/platformapi/...`, and `/api/core/...` for the
 * package, history, delete and workflow calls) and a release 6.4 one (`/api/...` only). The client
 * finds the prefixes by itself, and pays for a wrong guess once.
 */

const work = mkdtempSync(join(tmpdir(), "egp-client-releases-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const RELEASES = [
  { release: "6.14.0", base: "/platformapi", loginAttempts: 1 },
  { release: "6.4.1", base: "/api", loginAttempts: 2 },
];

describe.each(RELEASES)("release $release", ({ release, base, loginAttempts }) => {
  const { client } = useClientEmulator({
    seed: "demo-dev",
    release,
    jobs: { generateMs: 20, installMs: 20 },
  });

  it("runs the same calls, on the prefixes the release serves", async () => {
    const c = client();
    await expect(c.metadata.version()).resolves.toMatchObject({ Version: release });
    expect(c.paths().base).toBe(base);

    const users = await c.users.list({ filter: { field: "UserName", op: "eq", value: "anguyen" } });
    expect(users.map((u) => u.UserName)).toEqual(["anguyen"]);
    await expect(c.securityParameters.get(2)).resolves.toMatchObject({ Name: "General User Parameter" });
    const apps = await c.metadata.applications();
    expect(apps.map((a) => a.Guid)).toContain(demoGuid("risks"));

    const id = await c.packages.create({
      Name: `On ${release}`,
      Description: "",
      PreparedBy: "",
      PackageObjects: [{ Guid: demoGuid("comments"), Type: "SubForm" }],
    });
    await c.packages.generate(id);
    for (let i = 0; i < 200 && (await c.packages.get(id)).Status !== "Ready"; i++) await sleep(10);
    const { bytes } = await c.packages.download(id, join(work, `${release}.zip`));
    expect(bytes).toBeGreaterThan(0);
    expect(c.paths().apiCore).toBe("/api");

    const stats = c.stats();
    // 6.4 answers 404 on /platformapi once; every later call goes straight to /api.
    expect(stats.byRoute["POST /core/security/login"]).toBe(loginAttempts);
    expect(stats.requests).toBe(loginAttempts + 7 + stats.byRoute["POST /core/package/{}"]!);
  });
});
