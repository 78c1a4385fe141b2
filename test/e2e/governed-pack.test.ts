// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${EGP_HOOK_URL} here is egp.yaml text, not a template.
import { cp, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { exampleOnEmulators } from "../helpers/cli.ts";
import { installPacked, packEgp, run } from "../helpers/pack.ts";

/*
 * The governed entry points, through the published package (docs/architecture.md, "The governed
 * entry points"): a library caller changes an instance only through them, so a freeze refuses the
 * library as it refuses the CLI, and every call leaves its audit record. ./governed/governed.mjs
 * promotes local-dev's package to local-prod, freezes both, and calls each exported function that
 * applies or releases to an environment; a rollback, never frozen, goes through and notifies.
 */

const PASSWORD = "Governed#Test2026";
const UNGOVERNED = ["applyPlan", "executePlan", "rollBack", "promotePackage", "buildRelease", "governApply"];

let consumer = "";
let emulators: Emulator[] = [];
let hook: Server;
const received: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  const packed = await packEgp();
  consumer = await installPacked(packed.tarball, {});
  await cp(join(import.meta.dirname, "governed"), join(consumer, "governed"), { recursive: true });
  const jobs = { generateMs: 20, installMs: 20 };
  emulators = await Promise.all(
    ["demo-dev", "demo-prod"].map((seed) => startEmulator({ port: 0, seed, adminPassword: PASSWORD, jobs })),
  );
  hook = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk) => {
      text += chunk;
    });
    request.on("end", () => {
      received.push(JSON.parse(text));
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => hook.listen(0, "127.0.0.1", resolve));
}, 300_000);

afterAll(async () => {
  await Promise.all(emulators.map((emulator) => emulator.close()));
  await new Promise((resolve) => hook?.close(resolve));
});

describe("the governed entry points, from the packed package", () => {
  it("refuses the apply and the release build in a freeze with EGP_FROZEN and audits them; the rollback goes through and notifies", async () => {
    const [dev, prod] = emulators as [Emulator, Emulator];
    const dir = await exampleOnEmulators({ dev: dev.url, prod: prod.url }, { quick: true });
    await writeFile(
      join(dir, "egp.yaml"),
      "notify:\n  - url: ${EGP_HOOK_URL}\n    events: [applied, refused, rolled-back, failed]\n",
    );
    const url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
    const ran = await run(process.execPath, [join(consumer, "governed", "governed.mjs"), dir], {
      cwd: consumer,
      // Off GitHub Actions even when the suite runs there: in a run, the actor is who started it.
      env: {
        ...process.env,
        GITHUB_ACTIONS: "",
        EGP_TEST_PASSWORD: PASSWORD,
        EGP_HOOK_URL: url,
        EGP_ACTOR: "alice",
      },
      timeout: 120_000,
    });
    const result = JSON.parse(ran.stdout);

    expect(result.exported).toEqual(
      expect.arrayContaining(["apply", "rollback", "createRelease", "rejectRelease"]),
    );
    expect(result.exported.filter((name: string) => UNGOVERNED.includes(name))).toEqual([]);
    expect(result.promoted).toBe("complete");
    expect(result.refused).toEqual({ apply: "EGP_FROZEN", createRelease: "EGP_FROZEN" });
    expect(result.rolledBack).toBe("complete");
    expect(result.broken).toBeNull();
    expect(result.audit).toEqual([
      ["apply-started", "local-prod", "recorded", null],
      ["apply", "local-prod", "verified", null],
      ["apply", "local-prod", "refused", null],
      ["release-create", "local-dev", "refused", "r-frozen"],
      ["rollback", "local-prod", "verified", null],
    ]);

    expect(received.map((body) => [body.event, body.environment])).toEqual([
      ["applied", "local-prod"],
      ["refused", "local-prod"],
      ["refused", "local-dev"],
      ["rolled-back", "local-prod"],
    ]);
    expect(received.at(-1)).toMatchObject({
      actor: "alice",
      summary: expect.stringContaining("rolled back"),
    });
  }, 180_000);
});
