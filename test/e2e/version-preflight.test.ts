import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { egp, environmentFile, exampleOnEmulators, QUICK, ROOT } from "../helpers/cli.ts";
import { emulatorsPerTest } from "../helpers/raw.ts";
import { egpYamlFor, SIGNING_ENV } from "../helpers/signing-key.ts";
import { testdir } from "../helpers/testdir.ts";

/* A package built on a newer platform is refused at plan time on an older one (live and release). */

const ENV = { EGP_TEST_PASSWORD: "Password1!", ...SIGNING_ENV };
const start = emulatorsPerTest();
const jobs = { generateMs: 20, installMs: 20 };

describe("version preflight", () => {
  it("refuses a live promotion from 6.14.0 to 6.12.0, naming both versions; the other way passes", async () => {
    const [dev, prod] = await Promise.all([
      start({ seed: "demo-dev", release: "6.14.0", jobs }),
      start({ seed: "demo-prod", release: "6.12.0", jobs }),
    ]);
    const dir = await exampleOnEmulators({ dev: dev.url, prod: prod.url }, { quick: true });
    const plan = await egp(["plan", "--env", "local-prod", "--dir", dir], { env: ENV });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toMatch(
      /manifests\/packages\.yaml:\d+:\d+.*package "GRC Core" of local-dev was built on platform 6\.14\.0, and local-prod runs 6\.12\.0/,
    );
    expect(plan.stdout).not.toContain("Plan:");

    const [olderDev, newerProd] = await Promise.all([
      start({ seed: "demo-dev", release: "6.12.0", jobs }),
      start({ seed: "demo-prod", release: "6.14.0", jobs }),
    ]);
    const upward = await exampleOnEmulators({ dev: olderDev.url, prod: newerProd.url });
    const passes = await egp(["plan", "--env", "local-prod", "--dir", upward], { env: ENV });
    expect(passes.stderr).toBe("");
    expect(passes.code).toBe(0);
  });

  it("a release records its source's version, and is refused on an older platform", async () => {
    const [dev, prod] = await Promise.all([
      start({ seed: "demo-dev", release: "6.14.0", jobs }),
      start({ seed: "demo-prod", release: "6.12.0", jobs }),
    ]);
    const dir = await testdir({
      "egp.yaml": egpYamlFor(".egp/shared-store"),
      "manifests/packages.yaml": await readFile(join(ROOT, "manifests/packages.yaml"), "utf8"),
      "environments/dev.yaml": environmentFile(dev.url, QUICK),
      "environments/prod.yaml": environmentFile(prod.url, ["release: r1", ...QUICK]),
    });
    const created = await egp(["release", "create", "--from", "dev", "--name", "r1", "--dir", dir], {
      env: ENV,
    });
    expect(created.code).toBe(0);
    expect(await readFile(join(dir, "releases/r1.yaml"), "utf8")).toContain("platformVersion: 6.14.0");

    const plan = await egp(["plan", "--env", "prod", "--dir", dir], { env: ENV });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toMatch(
      /environments\/prod\.yaml:\d+:\d+ release: release r1 \(built on dev\) was built on platform 6\.14\.0, and prod runs 6\.12\.0/,
    );
  });
});
