import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { egp, lines, releasePipelineFiles } from "../helpers/cli.ts";
import { emulatorsPerTest } from "../helpers/raw.ts";
import { egpYamlFor, SIGNING_ENV } from "../helpers/signing-key.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * What people review of a release pipeline (dev → test → prod, over HTTP): the release's plan names
 * the parts it adds as a live promotion does; `status` shows the pipeline in its order with the
 * release each environment wants and the install it runs (rolled back or not); an install is never
 * called a release, and `release list` lists releases with where each is verified.
 */

const ENV = { EGP_TEST_PASSWORD: "Password1!", ...SIGNING_ENV };
const NAME = "2026-11-r1";
const startOne = emulatorsPerTest();
const temp: string[] = [];
afterAll(() => Promise.all(temp.map((dir) => rm(dir, { recursive: true, force: true }))));

async function emulator(seed: string) {
  const workDir = await mkdtemp(join(tmpdir(), "egp-release-view-"));
  temp.push(workDir);
  return startOne({ seed, workDir, jobs: { generateMs: 20, installMs: 20 } });
}

/** A GUID where a name should be: `field "4caff78e-…"`. */
const GUID_AS_NAME = /(field|level|layout|event rule|event action|application) "[0-9a-f]{8}-[0-9a-f]{4}-/;

describe("a release pipeline, as people review it", () => {
  it("names the release's parts, shows the pipeline in order with wants/runs, and says install for an install", async () => {
    const [dev, test, prod] = await Promise.all([
      emulator("demo-dev"),
      emulator("demo-prod"),
      emulator("demo-prod"),
    ]);
    const dir = await testdir({
      "egp.yaml": egpYamlFor("./store"),
      ...(await releasePipelineFiles({ dev: dev.url, test: test.url, prod: prod.url }, NAME)),
    });
    temp.push(dir);
    const run = (args: string[]) => egp([...args, "--dir", dir], { env: ENV });

    const created = await run(["release", "create", "--from", "dev", "--name", NAME]);
    expect(created.code, created.stderr).toBe(0);

    // The release's plan names what it adds, as a live promotion of the same change does.
    const planned = await run(["plan", "--env", "test"]);
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toContain('+ field "Last Tested": added');
    expect(planned.stdout).toContain('+ event rule "Ineffective control": added');
    expect(planned.stdout).toContain('+ application "Findings": added');
    expect(planned.stdout).not.toMatch(GUID_AS_NAME);
    const json = JSON.parse((await run(["plan", "--env", "test", "--format", "json"])).stdout);
    const parts = json.changes.flatMap((c: { fields: Array<{ parts?: unknown[] }> }) =>
      c.fields.flatMap((f) => f.parts ?? []),
    ) as Array<{ guid: string; name: string }>;
    const lastTested = parts.find((p) => p.name === "Last Tested");
    expect(lastTested?.guid).toMatch(/^[0-9a-f]{8}-/);

    for (const env of ["test", "prod"]) {
      const applied = await run(["apply", "--env", env, "--yes"]);
      expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    }
    const installs = lines((await run(["history", "--env", "prod", "--json"])).stdout).map((l) =>
      JSON.parse(l),
    );
    const install = installs[0]?.id as string;
    expect(install).toMatch(/^[0-9a-f]{12}$/);

    // An install is called an install, of the release it installed.
    const rollback = await run(["rollback", "--env", "prod", "--yes"]);
    expect(rollback.code, rollback.stdout + rollback.stderr).toBe(0);
    expect(rollback.stdout).toContain(`# rolls back install ${install} of release ${NAME} (promoted `);
    expect(rollback.stdout).toContain(
      `Rollback complete: prod has the versions of the snapshot of install ${install} of release ${NAME} again.`,
    );
    expect(rollback.stdout).not.toMatch(/release [0-9a-f]{12}/);
    const history = await run(["history", "--env", "prod"]);
    expect(lines(history.stdout)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^install ${install} of release ${NAME}, package "GRC Core", installed \\S+; .*; rolled back \\S+$`,
        ),
      ),
    ]);
    const help = await run(["releases", "--help"]);
    expect(help.stdout).toMatch(/list the installs of an environment/);

    // The pipeline in its order (not alphabetical), what each wants and what it runs.
    const status = await run(["status"]);
    expect(status.code, status.stderr).toBe(2);
    const rows = lines(status.stdout);
    expect(rows[0]).toMatch(/^environment\s+status\s+version\s+drift\s+wants\s+runs\s+pending apply$/);
    expect(rows[1]).toMatch(/^dev\s+matches\s+\S+\s+0\s+-\s+-\s+-$/);
    expect(rows[2]).toMatch(
      new RegExp(
        `^test\\s+drifted\\s+\\S+\\s+\\d+ \\(Package \\d+\\)\\s+release ${NAME}\\s+release ${NAME} \\(install [0-9a-f]{12}, verified \\S+\\)\\s+-$`,
      ),
    );
    expect(rows[3]).toMatch(
      new RegExp(
        `^prod\\s+drifted\\s+\\S+\\s+\\d+ \\(Package \\d+\\)\\s+release ${NAME}\\s+release ${NAME} \\(install ${install}, verified \\S+\\), rolled back \\S+\\s+-$`,
      ),
    );
    const report = JSON.parse((await run(["status", "--format", "json"])).stdout);
    expect(report.environments.map((e: { environment: string }) => e.environment)).toEqual([
      "dev",
      "test",
      "prod",
    ]);
    const [, testRow, prodRow] = report.environments;
    expect(testRow).toMatchObject({
      wants: { release: NAME },
      upstream: [],
      runs: { release: NAME, rolledBackAt: null },
    });
    expect(prodRow).toMatchObject({
      wants: { release: NAME },
      upstream: ["test"],
      runs: { release: NAME, install, package: "GRC Core", from: "dev" },
    });
    expect(prodRow.runs.rolledBackAt).toMatch(/^\d{4}-/);
    const markdown = await run(["status", "--format", "markdown"]);
    expect(markdown.stdout).toContain(
      `| \`prod\` | drifted | \`6.14.0\` | \`${prodRow.driftTotal} (Package ${prodRow.driftTotal})\` | \`release ${NAME}\` |`,
    );

    // --out says what it wrote, as compare does; the page marks the rolled-back install.
    const page = join(dir, "status.html");
    const html = await run(["status", "--format", "html", "--out", page]);
    expect(lines(html.stdout)).toEqual([
      `wrote ${page}: 3 environment(s): 1 matching, 2 drifted, 0 unreachable`,
    ]);
    const written = await readFile(page, "utf8");
    expect(written.indexOf('data-env="dev"')).toBeLessThan(written.indexOf('data-env="test"'));
    expect(written.indexOf('data-env="test"')).toBeLessThan(written.indexOf('data-env="prod"'));
    expect(written).toMatch(
      /<td class="runs rolled-back">release 2026-11-r1 \(install [0-9a-f]{12}, verified/,
    );

    // Releases, with where each is verified (in pipeline order) and where it was rolled back since.
    const list = await run(["release", "list"]);
    expect(list.code, list.stderr).toBe(0);
    expect(lines(list.stdout)).toEqual([
      expect.stringMatching(/^release\s+created\s+from\s+packages\s+verified on$/),
      expect.stringMatching(
        new RegExp(`^${NAME}\\s+\\S+\\s+dev\\s+GRC Core\\s+test; prod rolled back at \\S+$`),
      ),
    ]);
    const listed = lines((await run(["release", "list", "--json"])).stdout).map((l) => JSON.parse(l));
    expect(listed).toEqual([
      expect.objectContaining({
        name: NAME,
        file: `releases/${NAME}.yaml`,
        stored: true,
        from: "dev",
        problem: null,
        verifiedOn: [{ environment: "test", verifiedAt: expect.any(String) }],
        rolledBack: [{ environment: "prod", at: expect.any(String), to: null }],
      }),
    ]);
  }, 120_000);
});
