import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { egp, environmentFile, lines } from "../helpers/cli.ts";
import { RECORDS_ENV, thirdParties, useRecordsProd } from "../helpers/records-prod.ts";

/*
 * What drift and status exit with, over HTTP against demo-prod: 0 only when everything was checked
 * and nothing is open, 2 when findings are open (what could not be read among them), 1 only when
 * nothing could be checked. Status reads each environment on its own: one that can't be read never
 * hides the others, and it counts the open findings drift lists.
 */

const ENV = RECORDS_ENV;

const USERS = [
  "kind: User",
  "userName: anguyen",
  "firstName: Alice",
  "lastName: Nguyen",
  "title: Head of Everything",
  "---",
  "kind: SecurityParameter",
  "name: General User Parameter",
  "minPasswordLength: 12",
  "",
].join("\n");

const THIRD_PARTIES = thirdParties(["  - Vendor Name: Acme Hosting", "    Tier: Tier 2"]);

// The reads of users, their groups and roles, and security parameters (plain or through the GET override).
const USER_READS = /\/core\/system\/(user|usergroup|group|role|securityparameter)\b/i;

const startProd = useRecordsProd();

interface FindingJson {
  kind: string;
  object: string;
}

async function drift(dir: string, env = "prod") {
  const run = await egp(["drift", "--env", env, "--format", "json", "--dir", dir], { env: ENV });
  return { ...run, findings: run.code === 1 ? [] : (JSON.parse(run.stdout).findings as FindingJson[]) };
}

async function status(dir: string) {
  const run = await egp(["status", "--format", "json", "--dir", dir], { env: ENV });
  const rows = JSON.parse(run.stdout).environments as {
    environment: string;
    reachable: boolean;
    reason?: string;
    driftTotal?: number;
  }[];
  return { code: run.code, row: (env: string) => rows.find((row) => row.environment === env) };
}

describe("drift's exit codes", { timeout: 60_000 }, () => {
  it("exits 1 when nothing could be checked: every read the environment needs was refused", async () => {
    const { emulator, dir } = await startProd({ "manifests/users.yaml": USERS });
    emulator.faults.script({ path: USER_READS, times: 1000, action: { status: 403 } });
    const run = await drift(dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(lines(run.stderr)).toEqual([
      expect.stringMatching(/^egp: EGP_NOTHING_CHECKED nothing of prod could be checked: .*users: .*403/),
    ]);

    const { code, row } = await status(dir);
    expect(code).toBe(1);
    expect(row("prod")).toMatchObject({
      reachable: false,
      reason: expect.stringMatching(/^EGP_NOTHING_CHECKED nothing of prod could be checked/),
    });
  });

  it("exits 2 when one kind can't be read and another is compared", async () => {
    const { emulator, dir } = await startProd({
      "manifests/users.yaml": USERS,
      "manifests/third-parties.yaml": THIRD_PARTIES,
    });
    emulator.faults.script({ path: USER_READS, times: 1000, action: { status: 403 } });
    const run = await drift(dir);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(2);
    expect(run.findings.some((f) => f.kind === "unchecked")).toBe(true);
    expect(run.findings.some((f) => f.kind === "Record")).toBe(true);
    const { row } = await status(dir);
    expect(row("prod")).toMatchObject({ reachable: true, driftTotal: run.findings.length });
  });
});

describe("status over several environments", { timeout: 60_000 }, () => {
  it("reads the others when one can't be reached, and counts what drift lists", async () => {
    // `down`: an instance that refuses every connection.
    const { dir } = await startProd({ "manifests/users.yaml": USERS });
    await writeFile(join(dir, "environments/down.yaml"), environmentFile("http://127.0.0.1:9"));
    const prod = await drift(dir);
    expect(prod.code).toBe(2);
    const down = await drift(dir, "down");
    expect(down.code, down.stdout + down.stderr).toBe(1);
    expect(down.stdout).toBe("");
    // The instance's own failure, as plan prints it: not a list of every kind it could not read.
    expect(lines(down.stderr)).toEqual([expect.stringMatching(/^egp: EGP_\w+ /)]);
    expect(down.stderr).not.toContain("EGP_NOTHING_CHECKED");
    const { code, row } = await status(dir);
    expect(code).toBe(1);
    expect(row("down")).toMatchObject({ reachable: false });
    expect(row("prod")).toMatchObject({ reachable: true, driftTotal: prod.findings.length });
  });
});
