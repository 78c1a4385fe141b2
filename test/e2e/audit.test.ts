import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { describe, expect, it } from "vitest";
import { egp, exampleTree } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * The audit trail of the example repository's store (.egp/store): an apply recorded with its actor,
 * instance, plan digest and changes; `egp audit` checks the chain and names an edited record; the
 * HTML page is readable in Chromium with no script.
 */

const CHROMIUM = "/usr/bin/chromium";
const HOSTILE_ACTOR = "<img src=x onerror=alert(1)>";
const record = (dir: string, n: number) =>
  join(dir, ".egp/store/records/audit", `${String(n).padStart(12, "0")}.json`);

async function appliedRepository(actor: string): Promise<string> {
  const dir = await testdir(exampleTree());
  const applied = await egp(["apply", "--env", "local-prod", "--yes", "--dir", dir], {
    env: { EGP_ACTOR: actor },
  });
  expect(applied.code).toBe(0);
  return dir;
}

describe("egp audit", () => {
  it("lists an apply with its actor, instance, plan digest and changes, and the chain holds", async () => {
    const dir = await appliedRepository("alice");
    const text = await egp(["audit", "--dir", dir]);
    expect(text.stderr).toBe("");
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^#1 \S+ alice apply-started local-prod: recorded$/m);
    expect(text.stdout).toMatch(/^#2 \S+ alice apply local-prod: verified$/m);
    expect(text.stdout).toMatch(/^ {4}started: #1$/m);
    expect(text.stdout).toMatch(/^ {4}plan sha256: [0-9a-f]{64}$/m);
    expect(text.stdout).toContain("instance: Default at embedded:demo-prod");
    expect(text.stdout).toContain("promote Package GRC Core");
    expect(text.stdout).toContain("The chain holds");

    const json = JSON.parse(
      (await egp(["audit", "--format", "json", "--env", "local-prod", "--dir", dir])).stdout,
    );
    expect(json.holds).toBe(true);
    expect(json.records).toHaveLength(2);
    expect(json.records[1]).toMatchObject({
      actor: "alice",
      action: "apply",
      environment: "local-prod",
      result: "verified",
    });
    const none = await egp(["audit", "--env", "local-dev", "--dir", dir]);
    expect(none.stdout).toContain("No audit records (of local-dev).");
    const later = await egp(["audit", "--since", "2999-01-01", "--dir", dir]);
    expect(later.stdout).toContain("No audit records (since 2999-01-01).");

    const csv = (await egp(["audit", "--format", "csv", "--dir", dir])).stdout;
    expect(csv.split("\r\n")[0]).toBe(
      "sequence,at,actor,action,environment,instance,result,release,plan sha256,changes,failures,freeze exception,reason,run,chain broken,started,actor source,approvers",
    );
  });

  it("refuses an --env that names no environment, listing those that exist", async () => {
    const dir = await appliedRepository("alice");
    // A typo must not read as "nothing happened there": an auditor would take it as a clean trail.
    const typo = await egp(["audit", "--env", "prd", "--dir", dir]);
    expect(typo.code).toBe(1);
    expect(typo.stdout).toBe("");
    expect(typo.stderr).toBe(
      "egp: EGP_USAGE --env: no environments/prd.yaml (known: local-dev, local-prod)\n",
    );
    // An environment whose file was removed keeps its records: they can still be asked for.
    await rm(join(dir, "environments/local-prod.yaml"));
    const removed = await egp(["audit", "--env", "local-prod", "--dir", dir]);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toMatch(/^#2 \S+ alice apply local-prod: verified$/m);
  });

  it("reports an edited record and exits 1", async () => {
    const dir = await appliedRepository("alice");
    const drift = await egp(["apply", "--env", "local-prod", "--yes", "--dir", dir], {
      env: { EGP_ACTOR: "bob" },
    });
    expect(drift.code).toBe(0);
    const file = record(dir, 1);
    const edited = JSON.parse(await readFile(file, "utf8"));
    edited.actor = "mallory";
    await writeFile(file, JSON.stringify(edited));
    const audit = await egp(["audit", "--dir", dir]);
    expect(audit.code).toBe(1);
    expect(audit.stderr).toContain(
      "egp: EGP_AUDIT_BROKEN the audit chain is broken at audit/000000000001: its signature does not match its content",
    );
  });

  it.skipIf(!existsSync(CHROMIUM) && !process.env.CI)(
    "writes an HTML page an auditor can open: no script, names as text",
    async () => {
      const dir = await appliedRepository(HOSTILE_ACTOR);
      const written = await egp(["audit", "--format", "html", "--out", "audit.html", "--dir", dir], {
        cwd: dir,
      });
      expect(written.stdout).toBe("wrote audit.html\n");
      const html = await readFile(join(dir, "audit.html"), "utf8");
      expect(html).not.toMatch(/<script|<img/i);
      const profile = await mkdtemp(join(tmpdir(), "egp-chromium-"));
      const browser = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        args: [
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--no-first-run",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
        ],
      });
      try {
        const page = await browser.newPage();
        const requests: string[] = [];
        page.on("request", (r) => requests.push(r.url()));
        const href = pathToFileURL(join(dir, "audit.html")).href;
        await page.goto(href);
        await expect(page.title()).resolves.toBe("egp audit");
        expect(await page.locator("img").count()).toBe(0);
        const row = page.locator('tr[data-sequence="1"]');
        expect(await row.innerText()).toContain(HOSTILE_ACTOR);
        expect(await page.locator("#chain").innerText()).toContain("The chain holds");
        expect(requests).toEqual([href]);
      } finally {
        await browser.close();
        await rm(profile, { recursive: true, force: true });
      }
    },
    60_000,
  );
});
