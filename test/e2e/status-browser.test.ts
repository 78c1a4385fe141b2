import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type BrowserContext, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { publishInstall } from "../../src/apply/history.ts";
import { FolderStore } from "../../src/store/index.ts";
import { Keyring, SignedStore } from "../../src/store/signing.ts";

/** The default store as egp writes it: records signed with this user's local key. */
shareChildrenKey();
const signed = (folder: string) => new SignedStore(new FolderStore(folder), new Keyring());

import { egp, ROOT, type Run, shareChildrenKey } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * The HTML page of `egp status`, opened in Debian's chromium as compare's report is
 * (compare-browser.test.ts): no script, the CSP in place, every row visible, and a name from the
 * history that looks like markup shown as text. Skipped without the browser, outside CI.
 */

const CHROMIUM = "/usr/bin/chromium";
const present = existsSync(CHROMIUM);
if (!present && !process.env.CI)
  console.warn(`status-browser: skipped, ${CHROMIUM} is absent (scripts/ensure-chromium.sh installs it)`);
const ARTIFACTS = join(ROOT, "test-artifacts");
const HOSTILE = "<script>document.title='owned'</script><img src=x>";

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

let repo: string;
let run: Run;
let profile: string;
let browser: BrowserContext | undefined;

describe.skipIf(!present && !process.env.CI)("egp status --html in a browser", () => {
  beforeAll(async () => {
    repo = await testdir({
      "environments/dev.yaml": "url: embedded:demo-prod\ninstance: Default\n",
      "environments/down.yaml": [
        `url: http://127.0.0.1:${await closedPort()}`,
        "instance: Default",
        "auth: { username: sysadmin, password: not-used }",
        "",
      ].join("\n"),
    });
    // The repository has no egp.yaml: its store is the folder .egp/store.
    await publishInstall(signed(join(repo, ".egp", "store")), join(repo, ".egp"), {
      formatVersion: 1,
      id: "0123456789ab",
      environment: "dev",
      sourceEnvironment: "down",
      plan: "p1",
      package: { name: HOSTILE, digest: "0".repeat(64) },
      snapshot: null,
      created: [],
      startedAt: "2026-11-20T10:00:00.000Z",
      installedAt: "2026-11-20T10:02:00.000Z",
      rollbacks: [],
    });
    run = await egp(["status", "--html", "status.html"], { cwd: repo });
    profile = await mkdtemp(join(tmpdir(), "egp-chromium-"));
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      timeout: 30_000,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    if (profile) await rm(profile, { recursive: true, force: true });
  });

  it("exits 1 (one environment can't be read) and still prints every row", () => {
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^dev\s+matches/m);
    expect(run.stdout).toMatch(/^down\s+unreachable/m);
  });

  it("has no script and forbids loading anything", async () => {
    const html = await readFile(join(repo, "status.html"), "utf8");
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain(
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    );
  });

  it("shows every row, and a name that looks like markup as text", async () => {
    const page = await (browser as BrowserContext).newPage();
    await page.setViewportSize({ width: 1280, height: 600 });
    page.setDefaultTimeout(10_000);
    const requests: string[] = [];
    page.on("request", (request) => requests.push(request.url()));
    const href = pathToFileURL(join(repo, "status.html")).href;
    await page.goto(href);

    await expect(page.title()).resolves.toBe("egp status");
    expect(await page.locator("script").count()).toBe(0);
    expect(await page.locator("img").count()).toBe(0);
    const row = (env: string) => page.locator(`#status tr[data-env="${env}"]`);
    await expect(row("dev").isVisible()).resolves.toBe(true);
    await expect(row("down").isVisible()).resolves.toBe(true);
    expect(await row("dev").innerText()).toMatch(/^dev\s+matches\s+6\.14\.0\s+0\s/);
    expect(await row("dev").innerText()).toContain(
      `${JSON.stringify(HOSTILE)} from down (install 0123456789ab, installed 2026-11-20T10:02:00.000Z)`,
    );
    expect(await row("down").locator("td.why").innerText()).toMatch(/^EGP_CONNECTION .*ECONNREFUSED/);
    const color = await row("down")
      .locator(".badge.unreachable")
      .evaluate(
        (el) =>
          (
            globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }
          ).getComputedStyle(el).backgroundColor,
      );
    expect(color).toBe("rgb(207, 34, 46)");

    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "status.png"), fullPage: true });
    expect(requests).toEqual([href]);
  }, 30_000);
});
