// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${…} here is environment-file text, not a template.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PlatformClient } from "../../src/client/client.ts";
import { httpConnections } from "../../src/compose/connections.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { type EnvironmentConfig, planEnvironment } from "../../src/index.ts";
import { renderMarkdown, renderText } from "../../src/plan/index.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * A kind no manifest manages and no PrunePolicy names is not read: a repository with only a Package
 * document sends the target no user or parameter list read, and its plan says so rather than
 * counting no unmanaged users. Against emulators over HTTP, counted by route.
 */

const PASSWORD = "Unread#Test2026";
const USERS = "POST /core/system/user";
const PARAMETERS = "POST /core/system/securityparameter";
let dev: Emulator;
let prod: Emulator;

const environment = (url: string, extra = "") =>
  `url: ${url}\ninstance: Default\nauth: { username: sysadmin, password: '\${EGP_UNREAD_P}' }\n${extra}`;
const PACKAGE = "kind: Package\nname: GRC Core\nobjects:\n  - application: Risk Register\n";

beforeAll(async () => {
  process.env.EGP_UNREAD_P = PASSWORD;
  [dev, prod] = await Promise.all([
    startEmulator({ port: 0, seed: "demo-dev", adminPassword: PASSWORD }),
    startEmulator({ port: 0, seed: "demo-prod", adminPassword: PASSWORD }),
  ]);
});

afterAll(async () => {
  await Promise.all([dev?.close(), prod?.close()]);
});

/** A plan of prod from `manifests`; prod's requests by route. */
async function planOf(manifests: Record<string, string>, allowDelete = false) {
  const dir = await testdir({
    "environments/dev.yaml": environment(dev.url),
    "environments/prod.yaml": environment(prod.url, "packagesFrom: dev\n"),
    ...manifests,
  });
  const http = httpConnections();
  const clients = new Map<string, PlatformClient>();
  const open = async (config: EnvironmentConfig) => {
    const client = await http.open(config);
    clients.set(config.name, client);
    return client;
  };
  try {
    const { plan } = await planEnvironment({ dir, env: "prod", open, options: { allowDelete } });
    return { plan, routes: clients.get("prod")?.stats().byRoute ?? {} };
  } finally {
    await http.close();
  }
}

describe("a kind nothing manages", () => {
  it("is not read, and the plan says so instead of counting unmanaged users", async () => {
    const { plan, routes } = await planOf({ "manifests/package.yaml": PACKAGE });
    expect(routes[USERS]).toBeUndefined();
    expect(routes[PARAMETERS]).toBeUndefined();
    expect(routes["POST /core/system/application"]).toBe(1);
    expect(plan.unmanaged).toEqual([]);
    expect(plan.notRead).toEqual(["security parameters", "users"]);
    const line =
      "Not read (no manifest manages them, no PrunePolicy names them): security parameters, users.";
    expect(renderText(plan)).toContain(line);
    expect(renderMarkdown(plan)).toContain(line);
  });

  it("is read once a document manages it, and its unmanaged objects are counted", async () => {
    const user = "kind: User\nuserName: newcomer\nfirstName: New\nlastName: Comer\n";
    const { plan, routes } = await planOf({ "manifests/package.yaml": PACKAGE, "manifests/user.yaml": user });
    expect(routes[USERS]).toBe(1);
    expect(routes[PARAMETERS]).toBe(1);
    expect(plan.notRead).toBeUndefined();
    expect(plan.unmanaged.some((item) => item.kind === "User")).toBe(true);
  });

  it("is read when a PrunePolicy names it, or with --allow-delete", async () => {
    const policy = "kind: PrunePolicy\nusers: deactivate\n";
    const named = await planOf({ "manifests/package.yaml": PACKAGE, "manifests/prune.yaml": policy });
    expect(named.routes[USERS]).toBe(1);
    expect(named.plan.notRead).toEqual(["security parameters"]);
    const allowed = await planOf({ "manifests/package.yaml": PACKAGE }, true);
    expect(allowed.routes[USERS]).toBe(1);
    expect(allowed.routes[PARAMETERS]).toBe(1);
    expect(allowed.plan.notRead).toBeUndefined();
  });
});
