import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { catalogueOf } from "../../src/emulator/catalogue/model.ts";
import type { Emulator } from "../../src/emulator/index.ts";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import { egp, exampleOnEmulators, ROOT } from "../helpers/cli.ts";
import { emulatorsPerTest, Raw } from "../helpers/raw.ts";

/*
 * egp's main job needs only the calls of docs/apply.md's table: a promotion is planned, applied and
 * verified between two instances that answer 404 to every surface integrations use beyond the
 * interface description (the emulator's `integrations: false`).
 */

const ENV = { EGP_TEST_PASSWORD: "Password1!" };
const PROD = ["--env", "local-prod"];
const startOne = emulatorsPerTest();

const bare = (seed: string): Promise<Emulator> =>
  startOne({ seed, integrations: false, jobs: { generateMs: 20, installMs: 20 } });

/** The id of the Risk level's Category values list (a field id, as the emulator numbers lists). */
const category = (e: Emulator) => catalogueOf(e.store).byGuid("fields", demoGuid("risks/risk/category"))?.Id;

/** Every surface beyond the description that the emulator serves with integrations on. */
async function beyondTheDescription(e: Emulator): Promise<number[]> {
  const raw = new Raw(e.url);
  const token = await raw.token();
  const root = { prefix: "", token };
  return Promise.all([
    raw.call("/contentapi/", root),
    raw.call("/contentapi/Control", root),
    raw.call("/api/V2/internal/LookUp?node=root", root),
    raw.call("/", { prefix: "" }),
    new Raw(e.url, "/api").login(),
    raw.read("/core/system/user", token, { prefix: "/api" }),
    raw.read(`/core/system/valueslistvalue/valueslist/${category(e)}`, token),
    raw.call("/ws/general.asmx/CreateUserSessionFromInstance", {
      method: "POST",
      prefix: "",
      rawBody: "userName=sysadmin&instanceName=Default&password=Password1%21",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    }),
    raw.call("/core/system/WorkflowAction", {
      method: "POST",
      token,
      prefix: "/api",
      body: { ContentId: 1002, CompletionCode: 1, WorkflowNodeId: "202" },
    }),
  ]).then((answers) => answers.map((answer) => answer.status));
}

describe("egp's main job without the surfaces beyond the interface description", () => {
  it("plans, promotes and verifies while every one of them answers 404", async () => {
    const [dev, prod] = await Promise.all([bare("demo-dev"), bare("demo-prod")]);
    for (const e of [dev, prod])
      expect(await beyondTheDescription(e)).toEqual([404, 404, 404, 404, 404, 404, 404, 404, 404]);
    const dir = await exampleOnEmulators({ dev: dev.url, prod: prod.url }, { quick: true });
    const run = (args: string[]) => egp([...args, "--dir", dir], { env: ENV });

    const plan = await run(["plan", ...PROD, "--detailed-exitcode"]);
    expect(plan.code, plan.stdout + plan.stderr).toBe(2);
    expect(plan.stdout).toContain('# Package "GRC Core" will be promoted');

    const applied = await run(["apply", ...PROD, "--yes"]);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain("Apply complete: 2 added, 3 changed, 0 destroyed, 1 promoted.");
    expect(applied.stdout).toContain("Verified: local-prod matches the manifests.");

    const after = await run(["plan", ...PROD, "--detailed-exitcode"]);
    expect(after.code, after.stdout + after.stderr).toBe(0);
    expect(after.stdout).toContain("No changes.");
  });
});

describe("egp emulator --no-integrations", () => {
  it("answers 404 where the default answers", async () => {
    const status = async (flags: string[]) => {
      const child = spawn(process.execPath, [join(ROOT, "bin/egp.js"), "emulator", "--port", "0", ...flags], {
        stdio: ["ignore", "pipe", "ignore"],
        env: { PATH: process.env.PATH ?? "" },
      });
      const exited = new Promise((resolve) => child.once("exit", resolve));
      try {
        const url = await new Promise<string>((resolve, reject) => {
          let out = "";
          child.stdout.on("data", (chunk: Buffer) => {
            out += chunk.toString();
            const match = /listening on (http:\/\/\S+)/.exec(out);
            if (match?.[1]) resolve(match[1]);
          });
          child.once("exit", (code) => reject(new Error(`the emulator exited (${code}): ${out}`)));
        });
        const raw = new Raw(url, "");
        return [(await raw.call("/contentapi/")).status, (await raw.call("/")).status];
      } finally {
        child.kill("SIGTERM");
        await exited;
      }
    };
    expect(await status(["--seed", "empty"])).toEqual([401, 200]);
    expect(await status(["--seed", "empty", "--no-integrations"])).toEqual([404, 404]);
  });
});
