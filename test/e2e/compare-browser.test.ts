import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type BrowserContext, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { egp, exampleTree, ROOT, type Run } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * The HTML report of `egp compare`, opened as a person opens it: Debian's chromium, headless, driven
 * by playwright-core, with no network. It checks what is seen (the counts of the summary table, a
 * differing field inside a folded section once opened) and saves a screenshot as a test artifact.
 * In CI the browser must be there (`.ci/run` installs it); elsewhere, without it, the test is skipped.
 */

const CHROMIUM = "/usr/bin/chromium";
const present = existsSync(CHROMIUM);
if (!present && !process.env.CI)
  console.warn(`compare-browser: skipped, ${CHROMIUM} is absent (scripts/ensure-chromium.sh installs it)`);
const ARTIFACTS = join(ROOT, "test-artifacts");

let repo: string;
let run: Run;
let profile: string;
let browser: BrowserContext | undefined;

describe.skipIf(!present && !process.env.CI)("egp compare --format html in a browser", () => {
  beforeAll(async () => {
    repo = await testdir(exampleTree({ persist: false, manifests: false }));
    run = await egp(
      ["compare", "--from", "local-dev", "--to", "local-prod", "--format", "html", "--out", "report.html"],
      { cwd: repo },
    );
    profile = await mkdtemp(join(tmpdir(), "egp-chromium-"));
    // A fresh profile: playwright passes it as --user-data-dir.
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

  it("exits 2 and writes the report", () => {
    expect(run.code).toBe(2);
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe(
      "wrote report.html: 2 mismatched, 1 missing in target, 0 missing in source, 3 matched\n",
    );
  });

  it("shows the counts, and a differing field once its section is opened", async () => {
    const page = await (browser as BrowserContext).newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    page.setDefaultTimeout(10_000);
    const requests: string[] = [];
    page.on("request", (request) => requests.push(request.url()));
    await page.goto(pathToFileURL(join(repo, "report.html")).href);

    await expect(page.title()).resolves.toBe("egp compare: local-dev → local-prod");
    const count = (status: string) =>
      page.locator(`#summary tr[data-status="${status}"] td.count`).innerText();
    expect(await count("matched")).toBe("3");
    expect(await count("mismatched")).toBe("2");
    expect(await count("missingInTarget")).toBe("1");
    expect(await count("missingInSource")).toBe("0");
    expect(await count("critical")).toBe("2");

    const controls = page.locator("details.object", { hasText: "Application Controls" });
    // The field's own row (the layout's row names it too).
    const legacy = controls
      .locator("tr")
      .filter({ has: page.locator("td:nth-child(3)", { hasText: /^Legacy Control ID/ }) });
    // Folded: in the page, not visible until a person opens the section.
    await expect(legacy.isVisible()).resolves.toBe(false);
    await controls.locator("summary").click();
    await legacy.waitFor({ state: "visible" });
    expect(await legacy.innerText()).toMatch(
      /missing in local-dev\s+field\s+Legacy Control ID.*\s+critical/s,
    );
    // Runs in the page; this file is typed without the DOM's names, hence the window's shape here.
    const color = await legacy
      .locator(".badge.critical")
      .evaluate(
        (el) =>
          (
            globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }
          ).getComputedStyle(el).backgroundColor,
      );
    expect(color).toBe("rgb(207, 34, 46)");

    await mkdir(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "compare.png"), fullPage: true });
    // Self-contained: the page asked for nothing but itself.
    expect(requests).toEqual([pathToFileURL(join(repo, "report.html")).href]);
  }, 30_000);

  it("with --expand, every section is open: the part missing in local-dev shows as local-prod has it", async () => {
    const expanded = await egp(
      [
        "compare",
        "--from",
        "local-dev",
        "--to",
        "local-prod",
        "--format",
        "html",
        "--out",
        "open.html",
        "--expand",
      ],
      { cwd: repo },
    );
    expect(expanded.code).toBe(2);
    const page = await (browser as BrowserContext).newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(pathToFileURL(join(repo, "open.html")).href);
    const legacy = page
      .locator("details.object", { hasText: "Application Controls" })
      .locator("tr")
      .filter({ has: page.locator("td:nth-child(3)", { hasText: /^Legacy Control ID/ }) });
    await expect(legacy.isVisible()).resolves.toBe(true);
    expect(await legacy.locator("td:nth-child(4)").innerText()).toMatch(
      /^on local-prod:\s+name: "Legacy Control ID"/,
    );
    const header = await page.locator("details.object thead th:nth-child(4)").first().innerText();
    expect(header).toBe("local-dev → local-prod");
    expect(await page.locator("details.object:not([open])").count()).toBe(0);
  }, 30_000);
});
