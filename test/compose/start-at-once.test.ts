// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${…} here is environment-file text, not a template.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpConnections } from "../../src/compose/connections.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { type EnvironmentConfig, planEnvironment } from "../../src/index.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * What needs no manifest starts before the manifests are loaded: the target's reads and catalogue,
 * and the package source's session and catalogue. Shown with manifests that fail to load: the
 * requests sent before the failure are those that did not wait for them.
 */

const PASSWORD = "AtOnce#Test2026";
let dev: Emulator;
let prod: Emulator;

const environment = (url: string, extra = "") =>
  `url: ${url}\ninstance: Default\nauth: { username: sysadmin, password: '\${EGP_AT_ONCE_P}' }\n${extra}`;

beforeAll(async () => {
  process.env.EGP_AT_ONCE_P = PASSWORD;
  [dev, prod] = await Promise.all([
    startEmulator({ port: 0, seed: "demo-dev", adminPassword: PASSWORD }),
    startEmulator({ port: 0, seed: "demo-prod", adminPassword: PASSWORD }),
  ]);
});

afterAll(async () => {
  await Promise.all([dev?.close(), prod?.close()]);
});

describe("reads that need no manifest", () => {
  it("start on both instances before the manifests are loaded", async () => {
    const dir = await testdir({
      "environments/dev.yaml": environment(dev.url),
      "environments/prod.yaml": environment(prod.url, "packagesFrom: dev\n"),
      "manifests/package.yaml": "kind: Package\nname: GRC Core\nobjects:\n  - application: Risk Register\n",
      "manifests/broken.yaml": "kind: SecurityParameter\nname: General User Parameter\nnoSuchField: 1\n",
    });
    const routes: Record<string, string[]> = { dev: [], prod: [] };
    const connections = Object.fromEntries(
      Object.keys(routes).map((name) => [
        name,
        httpConnections({ onRequest: (info) => routes[name]?.push(info.route) }),
      ]),
    );
    const open = (config: EnvironmentConfig) => {
      const chosen = connections[config.name];
      if (!chosen) throw new Error(`unexpected environment ${config.name}`);
      return chosen.open(config);
    };
    await expect(planEnvironment({ dir, env: "prod", open })).rejects.toThrow(/noSuchField/);
    await Promise.all(Object.values(connections).map((c) => c.close()));
    for (const name of ["dev", "prod"]) {
      expect(routes[name]).toContain("/core/security/login");
      expect(routes[name]).toContain("/core/system/application");
    }
  });
});
