import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { catalogueOf } from "../../src/emulator/catalogue/model.ts";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import { egp, exampleOnEmulators } from "../helpers/cli.ts";
import { driftRecorder, type FindingJson, findingsOf } from "../helpers/drift-runs.ts";
import { forwardingProxy } from "../helpers/forwarding-proxy.ts";
import { useEmulator } from "../helpers/raw.ts";

/*
 * Questionnaires in `egp drift`, over HTTP: the example's demo pipeline with a package naming the
 * Vendor Risk Assessment questionnaire, applied; then prod's questionnaire rules are changed behind
 * egp's back (in the emulator, as someone would in the UI): one made only there, one's condition
 * edited. Every request a drift run sends is logged by a proxy in front of each instance.
 */

const PASSWORD = "Password1!";
const ENV = { EGP_TEST_PASSWORD: PASSWORD, EGP_ACTOR: "dana" };
const dev = useEmulator({ seed: "demo-dev", jobs: { generateMs: 20, installMs: 20 } });
const prod = useEmulator({ seed: "demo-prod", jobs: { generateMs: 20, installMs: 20 } });

const ASSESSMENT = "Application Vendor Risk Assessment";
const LEVEL = "vendor-assessment/assessment";
const HIGH_RISK = demoGuid(`${LEVEL}?high`);
const PROD_ONLY = "0e0e0e0e-2222-4333-8444-666666666666";

const PACKAGE = [
  "kind: Package",
  "name: Assessments",
  "description: The vendor risk questionnaire.",
  "objects:",
  "  - application: Vendor Risk Assessment",
  "",
].join("\n");

const recorder = driftRecorder();
const proxies: Awaited<ReturnType<typeof forwardingProxy>>[] = [];
let repo: string;

async function drift(args: readonly string[]) {
  return recorder.during(() => egp(["drift", "--env", "local-prod", ...args, "--dir", repo], { env: ENV }));
}

async function findings() {
  return findingsOf(await drift(["--format", "json"]));
}

const ofAssessment = (open: readonly FindingJson[]) => open.filter((f) => f.object === ASSESSMENT);

/** A questionnaire rule someone made on prod: no package delivers it, and no install removes it. */
function ruleOnlyOnProd(): void {
  const catalogue = catalogueOf(prod.emulator().store);
  const level = catalogue.byGuid("levels", demoGuid(LEVEL));
  const contact = catalogue.byGuid("fields", demoGuid(`${LEVEL}/contact`));
  if (!level || !contact) throw new Error("demo-prod has no vendor assessment level");
  catalogue.put("questionnaireRules", {
    Id: catalogue.nextId("questionnaireRules"),
    Guid: PROD_ONLY,
    Alias: "board_review",
    Name: "Board review",
    LevelId: level.Id,
    Condition: "Security_Contact is empty",
    ConditionFieldIds: [contact.Id],
    Outcome: "Escalate to the board",
    UpdateInformation: null,
  });
  prod.emulator().store.changed();
}

/** A delivered questionnaire rule whose condition someone edited on prod. */
function editCondition(condition: string): void {
  const catalogue = catalogueOf(prod.emulator().store);
  const rule = catalogue.byGuid("questionnaireRules", HIGH_RISK);
  if (!rule) throw new Error("demo-prod has no high inherent risk rule");
  catalogue.put("questionnaireRules", { ...rule, Condition: condition });
  prod.emulator().store.changed();
}

beforeAll(async () => {
  proxies.push(await forwardingProxy(dev.emulator().url, recorder.record));
  proxies.push(await forwardingProxy(prod.emulator().url, recorder.record));
  repo = await exampleOnEmulators({ dev: proxies[0]?.url ?? "", prod: proxies[1]?.url ?? "" });
  await writeFile(join(repo, "manifests/assessments.yaml"), PACKAGE);
  const applied = await egp(["apply", "--env", "local-prod", "--yes", "--dir", repo], { env: ENV });
  expect(applied.code, applied.stdout + applied.stderr).toBe(0);
}, 120_000);

afterAll(() => Promise.all(proxies.map((proxy) => proxy.close())));

describe("egp drift of a questionnaire", { timeout: 60_000 }, () => {
  it("has no finding while prod's questionnaire is as dev's, and the plan has no change for it", async () => {
    const { open } = await findings();
    expect(ofAssessment(open)).toEqual([]);
    const plan = await egp(["plan", "--env", "local-prod", "--dir", repo], { env: ENV });
    expect(plan.stdout + plan.stderr).not.toContain("Assessments");
  });

  it("lists a questionnaire rule only on prod and one edited there, each with a fingerprint, and exits 2", async () => {
    ruleOnlyOnProd();
    editCondition("Data_Access = Restricted");
    const { code, open } = await findings();
    expect(code).toBe(2);
    const found = ofAssessment(open);
    expect(found).toHaveLength(2);
    expect(found.find((f) => f.part === `questionnaireRule:${PROD_ONLY}`)).toMatchObject({
      kind: "Package",
      partLabel: 'questionnaire rule "Board review" of "Vendor Risk Assessment", only on the target',
      severity: "medium",
      onlyOnTarget: true,
      remedy: "only by hand: a package cannot remove it",
      fingerprint: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    expect(found.find((f) => f.part === `questionnaireRule:${HIGH_RISK}`)).toMatchObject({
      kind: "Package",
      partLabel: 'questionnaire rule "High inherent risk" of "Vendor Risk Assessment"',
      severity: "medium",
      remedy: "plan fixes it",
      fingerprint: expect.stringMatching(/^[0-9a-f]{16}$/),
    });

    const text = await drift([]);
    expect(text.code).toBe(2);
    expect(text.stdout).toContain('questionnaire rule "Board review" of "Vendor Risk Assessment"');
  });

  it("plans the edited rule back, and says what changed", async () => {
    const plan = await egp(["plan", "--env", "local-prod", "--dir", repo], { env: ENV });
    expect(plan.stdout).toContain(
      '~ questionnaire rule "High inherent risk": condition "Data_Access = Restricted" → "Data_Access = Restricted AND Has_SOC_2_Report = No"',
    );
  });

  it("an acknowledged questionnaire rule is listed apart, the other stays open", async () => {
    const before = await findings();
    const onlyOnProd = ofAssessment(before.open).find((f) => f.onlyOnTarget);
    if (!onlyOnProd) throw new Error("no finding of the prod-only questionnaire rule");
    const written = await egp(
      [
        "drift",
        "ack",
        onlyOnProd.fingerprint,
        "--env",
        "local-prod",
        "--reason",
        "the board asked for it",
        "--until",
        new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10),
        "--dir",
        repo,
      ],
      { env: ENV },
    );
    expect(written.code, written.stderr).toBe(0);
    const after = await findings();
    expect(after.code).toBe(2);
    expect(after.open.length).toBe(before.open.length - 1);
    expect(ofAssessment(after.open).map((f) => f.part)).toEqual([`questionnaireRule:${HIGH_RISK}`]);
    expect(after.json.acknowledged).toEqual([
      expect.objectContaining({ fingerprint: onlyOnProd.fingerprint }),
    ]);
  });

  it("after an apply, only the rule a package cannot remove is left", async () => {
    const applied = await egp(["apply", "--env", "local-prod", "--yes", "--dir", repo], { env: ENV });
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const rule = catalogueOf(prod.emulator().store).byGuid("questionnaireRules", HIGH_RISK);
    expect(rule?.Condition).toBe("Data_Access = Restricted AND Has_SOC_2_Report = No");
    const { open, json } = await findings();
    expect(ofAssessment(open)).toEqual([]);
    expect(json.acknowledged.map((f: FindingJson) => f.part)).toEqual([`questionnaireRule:${PROD_ONLY}`]);
  });
});

describe("what a drift run sends", () => {
  it("is reads only: GET, POST with the GET override, login and logout", () => {
    expect(recorder.sent.length).toBeGreaterThan(0);
    expect(recorder.writes()).toEqual([]);
  });
});
