import { mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { egp, exampleTree, lines } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * Freeze windows over the example repository (embedded emulators): plan gives a notice, apply is
 * refused before anything is written, and a reviewed exception lets its actors, and only them, through.
 */

const hour = 3600_000;
const iso = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString().replace(/\.\d+Z$/, "Z");
const PROD = "environments/local-prod.yaml";

async function frozenRepository(exceptions: Record<string, string> = {}): Promise<string> {
  const tree = exampleTree();
  tree[PROD] =
    `${tree[PROD]}\nfreeze:\n` +
    `  - { from: ${iso(-hour)}, to: ${iso(48 * hour)}, reason: year-end close }\n` +
    '  - { weekly: [friday], from: "16:00", to: "23:59", timeZone: Europe/Berlin, reason: weekend }\n';
  for (const [name, text] of Object.entries(exceptions)) tree[`freeze-exceptions/${name}.yaml`] = text;
  return testdir(tree);
}

const exception = (until: string, allowedBy = "[alice]") =>
  `environment: local-prod\nuntil: ${until}\nreason: incident 4711 hotfix\nallowedBy: ${allowedBy}\n`;

const apply = (dir: string, actor: string) =>
  egp(["apply", "--env", "local-prod", "--yes", "--dir", dir], { env: { EGP_ACTOR: actor } });

async function changesLeft(dir: string): Promise<string> {
  const plan = await egp(["plan", "--env", "local-prod", "--dir", dir], { env: { EGP_ACTOR: "bob" } });
  return plan.stdout.match(/^Plan: .*$/m)?.[0] ?? "No changes.";
}

describe("freeze windows", () => {
  it("plan gives a notice; apply in a window is refused with EGP_FROZEN before any write", async () => {
    const dir = await frozenRepository();
    const before = await changesLeft(dir);
    expect(before).toMatch(/^Plan: \d+ to add/);

    const plan = await egp(["plan", "--env", "local-prod", "--dir", dir], { env: { EGP_ACTOR: "bob" } });
    expect(plan.code).toBe(0);
    expect(plan.stderr).toContain("Notice: local-prod is frozen (year-end close");

    const refused = await apply(dir, "bob");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /EGP_FROZEN local-prod is frozen until \S+ \S+ UTC: year-end close \(\S+ to \S+\); a freeze exception in freeze-exceptions\/ lets named actors through$/m,
    );
    expect(refused.stderr).not.toContain("    at ");
    expect(refused.stdout).not.toContain("Apply complete");
    expect(await changesLeft(dir)).toBe(before);
  });

  it("a night window holds through both 02:30s of the night the clocks go back", async () => {
    const tree = exampleTree();
    tree[PROD] =
      `${tree[PROD]}\nfreeze:\n` +
      '  - { weekly: [saturday], from: "22:00", to: "04:00", timeZone: Europe/Berlin, reason: night }\n';
    const dir = await testdir(tree);
    const before = await changesLeft(dir);
    expect(before).toMatch(/^Plan: \d+ to add/);
    // On 2026-10-25 Berlin goes from 03:00 CEST back to 02:00 CET at 01:00Z: 00:30Z is the first
    // 02:30 (CEST), 01:30Z the second (CET), in the hour that a week later is frozen like any other.
    for (const now of ["2026-10-25T00:30:00Z", "2026-10-25T01:30:00Z"]) {
      const refused = await egp(["apply", "--env", "local-prod", "--yes", "--dir", dir], {
        env: { EGP_ACTOR: "bob" },
        now,
      });
      expect(refused.stderr).toContain(
        "EGP_FROZEN local-prod is frozen until 2026-10-25 04:01 Europe/Berlin (03:01Z): night",
      );
      expect(refused.code).toBe(1);
      expect(refused.stdout).not.toContain("Apply complete");
    }
    expect(await changesLeft(dir)).toBe(before);
    // Its last minute is 04:00 CET (03:00Z); a minute later the plan gives no notice.
    const after = await egp(["plan", "--env", "local-prod", "--dir", dir], { now: "2026-10-25T03:01:00Z" });
    expect(after.code).toBe(0);
    expect(after.stderr).not.toContain("frozen");
  });

  it("in a freeze, the plan starts FROZEN until its end, status shows it, and EGP_FROZEN says when it ends", async () => {
    const tree = exampleTree();
    tree[PROD] =
      `${tree[PROD]}\nfreeze:\n` +
      '  - { weekly: [saturday], from: "22:00", to: "03:59", timeZone: Europe/Berlin, reason: Weekend freeze }\n';
    const dir = await testdir(tree);
    // Sunday 2026-12-06 02:00 CET: the Saturday night window ends at 04:00 CET, 03:00Z.
    const now = "2026-12-06T01:00:00Z";
    const run = (args: string[]) => egp([...args, "--dir", dir], { env: { EGP_ACTOR: "bob" }, now });
    const header = "FROZEN until 2026-12-06 04:00 Europe/Berlin (03:00Z) (Weekend freeze)";

    const text = await run(["plan", "--env", "local-prod", "--out", join(dir, "plan.json")]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout.split("\n")[0]).toBe(header);
    expect(text.stdout).toMatch(/^Plan: \d+ to add/m);
    const markdown = await run(["plan", "--env", "local-prod", "--format", "markdown"]);
    expect(markdown.stdout.split("\n")[0]).toBe(
      "FROZEN until 2026-12-06 04:00 Europe/Berlin (03:00Z) (`Weekend freeze`)",
    );
    expect(markdown.stdout).toContain("### egp plan for `local-prod`");
    const json = JSON.parse((await run(["plan", "--env", "local-prod", "--format", "json"])).stdout);
    expect(json.freeze).toEqual({
      until: "2026-12-06 04:00",
      zone: "Europe/Berlin",
      untilInstant: "2026-12-06T03:00:00.000Z",
      reason: "Weekend freeze",
    });
    // The saved plan keeps it: the job summary rendered from the file says it too.
    const shown = await egp(["show", "plan.json", "--format", "markdown"], { cwd: dir });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout.split("\n")[0]).toContain("FROZEN until 2026-12-06 04:00 Europe/Berlin");

    const status = await run(["status"]);
    expect(status.stdout).toContain(
      `local-prod: frozen until 2026-12-06 04:00 Europe/Berlin (03:00Z) (Weekend freeze)`,
    );
    expect(status.stdout).not.toContain("local-dev: frozen");
    const report = JSON.parse((await run(["status", "--format", "json"])).stdout);
    const prod = report.environments.find((e: { environment: string }) => e.environment === "local-prod");
    expect(prod.freeze).toMatchObject({ until: "2026-12-06 04:00", reason: "Weekend freeze" });
    const html = await run(["status", "--format", "html"]);
    expect(html.stdout).toMatch(/data-env="local-prod"[^\n]*<span class="badge frozen">frozen<\/span>/);

    const refused = await run(["apply", "--env", "local-prod", "--yes"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      "egp: EGP_FROZEN local-prod is frozen until 2026-12-06 04:00 Europe/Berlin (03:00Z): Weekend freeze (saturday 22:00–03:59 Europe/Berlin); a freeze exception in freeze-exceptions/ lets named actors through\n",
    );
    // Once it ends, the plan has no header.
    const after = await egp(["plan", "--env", "local-prod", "--dir", dir], { now: "2026-12-06T03:00:00Z" });
    expect(after.stdout).not.toContain("FROZEN");
  }, 120_000);

  it("an exception lets only its actors through, and only while it runs and within 24 hours", async () => {
    const cases: [string, string, RegExp][] = [
      ["mallory", exception(iso(2 * hour)), /does not allow mallory/],
      ["alice", exception(iso(-hour / 2)), /expired at/],
      ["alice", exception(iso(30 * hour)), /more than 24 hours ahead/],
    ];
    for (const [actor, text, reason] of cases) {
      const dir = await frozenRepository({ hotfix: text });
      const refused = await apply(dir, actor);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(reason);
    }

    const dir = await frozenRepository({ hotfix: exception(iso(2 * hour)) });
    const applied = await apply(dir, "alice");
    expect(applied.stderr).toBe("");
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain(
      "alice goes through under freeze-exceptions/hotfix.yaml (incident 4711 hotfix)",
    );
    expect(await changesLeft(dir)).toBe("No changes.");
  });

  it("an exception that is a link to a file outside the repository, or too large, is refused in one line", async () => {
    const outside = await testdir({ "hotfix.yaml": exception(iso(2 * hour)) });
    const dir = await frozenRepository();
    await mkdir(join(dir, "freeze-exceptions"));
    await symlink(join(outside, "hotfix.yaml"), join(dir, "freeze-exceptions/hotfix.yaml"));
    const refusal =
      "egp: EGP_MANIFEST_INVALID freeze-exceptions/hotfix.yaml: is a symbolic link; a freeze exception must be a plain file of the repository, so that egp reads what was reviewed";
    for (const args of [
      ["plan", "--env", "local-prod"],
      ["apply", "--env", "local-prod", "--yes"],
    ]) {
      const refused = await egp([...args, "--dir", dir], { env: { EGP_ACTOR: "alice" } });
      expect(refused.code).toBe(1);
      expect(lines(refused.stderr)).toEqual([refusal]);
      expect(refused.stdout).not.toContain("Apply complete");
    }
    const validated = await egp(["validate", "--dir", dir]);
    expect(validated.code).toBe(1);
    expect(validated.stderr).toContain(
      "freeze-exceptions/hotfix.yaml: is a symbolic link; a freeze exception must be a plain file",
    );

    const large = await frozenRepository({
      hotfix: `${exception(iso(2 * hour))}${"# padding\n".repeat(7000)}`,
    });
    const big = await egp(["validate", "--dir", large]);
    expect(big.code).toBe(1);
    expect(big.stderr).toMatch(/freeze-exceptions\/hotfix\.yaml: is \d+ bytes, more than 64 KiB/);
  });

  it("validate refuses a from/to window whose to is before its from, pointing at its to", async () => {
    const tree = exampleTree();
    tree[PROD] =
      `${tree[PROD]}\nfreeze:\n  - from: 2027-01-04T00:00:00Z\n    to: 2026-12-20T00:00:00Z\n    reason: year-end close\n`;
    const dir = await testdir(tree);
    const line = tree[PROD].split("\n").indexOf("    to: 2026-12-20T00:00:00Z") + 1;
    const result = await egp(["validate", "--dir", dir]);
    expect(result.stderr).toMatch(
      new RegExp(`environments/local-prod\\.yaml:${line}:\\d+.*to is before from`),
    );
    expect(result.code).toBe(1);
  });

  it("validate points at a malformed window and a malformed exception", async () => {
    const tree = exampleTree();
    tree[PROD] = `${tree[PROD]}\nfreeze:\n  - { weekly: [fryday], from: "16:00", to: "23:59", reason: x }\n`;
    tree["freeze-exceptions/late.yaml"] =
      "environment: local-prod\nuntil: tomorrow\nreason: r\nallowedBy: [alice]\n";
    const dir = await testdir(tree);
    const result = await egp(["validate", "--dir", dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/environments\/local-prod\.yaml:\d+:\d+/);
    expect(result.stderr).toMatch(/freeze-exceptions\/late\.yaml:2:\d+.*until/);
  });

  it("validate refuses an exception naming an environment that does not exist, at its value", async () => {
    // Ignored at apply, a misspelt name would leave the incident team frozen with a reviewed way through.
    const tree = exampleTree();
    tree["freeze-exceptions/hotfix.yaml"] = exception(iso(hour)).replace("local-prod", "local-prd");
    const dir = await testdir(tree);
    const result = await egp(["validate", "--dir", dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'freeze-exceptions/hotfix.yaml:1:14 environment: unknown environment "local-prd" (known: local-dev, local-prod)',
    );
  });
});
