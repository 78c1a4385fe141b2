import { describe, expect, it } from "vitest";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import { InvalidArgumentError, NotFoundError } from "../../src/index.ts";
import { useClientEmulator } from "./helpers/client.ts";

/* The 16 metadata reads of the seed, and the two field definition reads, against demo-dev. */

describe("metadata", () => {
  const { client } = useClientEmulator({ seed: "demo-dev" });

  it("applications and application by id", async () => {
    const c = client();
    const apps = await c.metadata.applications();
    const risks = apps.find((app) => app.Guid === demoGuid("risks"));
    expect(risks).toMatchObject({ Name: "Risk Register", Type: "Application", KeepLicensed: true });
    await expect(c.metadata.application(risks?.Id as number)).resolves.toEqual(risks);
  });

  it("questionnaires and questionnaire by id", async () => {
    const c = client();
    const [questionnaire] = await c.metadata.questionnaires();
    expect(questionnaire?.Name).toBe("Vendor Risk Assessment");
    await expect(c.metadata.questionnaire(questionnaire?.Id as number)).resolves.toEqual(questionnaire);
  });

  it("levels, level by id and levels by module", async () => {
    const c = client();
    const levels = await c.metadata.levels();
    const risk = levels.find((level) => level.Guid === demoGuid("risks/risk"));
    expect(risk).toMatchObject({ Name: "Risk", ModuleName: "Risk Register" });
    await expect(c.metadata.level(risk?.Id as number)).resolves.toEqual(risk);
    const ofModule = await c.metadata.levelsByModule(risk?.ModuleId as number);
    expect(ofModule.map((level) => level.Id)).toContain(risk?.Id);
    expect(ofModule.every((level) => level.ModuleId === risk?.ModuleId)).toBe(true);
  });

  it("field definitions, and the levels a reference field targets", async () => {
    const c = client();
    const risk = (await c.metadata.levels()).find((level) => level.Guid === demoGuid("risks/risk"));
    const fields = await c.metadata.fieldDefinitions(risk?.Id as number);
    const reference = fields.find((field) => field.ReferencedLevelIds.length > 0);
    expect(reference).toBeDefined();
    await expect(c.metadata.fieldDefinition(reference?.Id as number)).resolves.toEqual(reference);
    const targets = await c.metadata.levelsByReferenceField(reference?.Id as number);
    expect(targets.map((level) => level.Id).sort()).toEqual(
      [...(reference?.ReferencedLevelIds ?? [])].sort(),
    );
  });

  it("level layout by level id", async () => {
    const c = client();
    const risk = (await c.metadata.levels()).find((level) => level.Guid === demoGuid("risks/risk"));
    const layout = await c.metadata.levelLayout(risk?.Id as number);
    expect(layout).toMatchObject({ LevelId: risk?.Id, Name: "Risk Layout" });
    expect(layout.Sections.map((section) => section.Name)).toEqual(["Risk", "Assessment", "Treatment"]);
  });

  it("event rules by level and by id, event actions by rule and by id", async () => {
    const c = client();
    const risk = (await c.metadata.levels()).find((level) => level.Guid === demoGuid("risks/risk"));
    const rules = await c.metadata.eventRulesByLevel(risk?.Id as number);
    const escalate = rules.find((rule) => rule.Name === "Escalate critical risks");
    expect(escalate).toBeDefined();
    await expect(c.metadata.eventRule(escalate?.Id as number)).resolves.toEqual(escalate);
    const actions = await c.metadata.eventActionsByRule(escalate?.Id as number);
    expect(actions.map((action) => action.Name)).toEqual(
      expect.arrayContaining(["Notify risk owner", "Require treatment controls"]),
    );
    expect(actions.every((action) => action.EventRuleId === escalate?.Id)).toBe(true);
    await expect(c.metadata.eventAction(actions[0]?.Id as number)).resolves.toEqual(actions[0]);
  });

  it("questionnaire rules by level and by id", async () => {
    const c = client();
    const [questionnaire] = await c.metadata.questionnaires();
    const [level] = await c.metadata.levelsByModule(questionnaire?.Id as number);
    const rules = await c.metadata.questionnaireRulesByLevel(level?.Id as number);
    expect(rules.length).toBeGreaterThan(0);
    expect(rules.every((rule) => rule.LevelId === level?.Id)).toBe(true);
    await expect(c.metadata.questionnaireRule(rules[0]?.Id as number)).resolves.toEqual(rules[0]);
  });

  it("instance version", async () => {
    await expect(client().metadata.version()).resolves.toMatchObject({
      Version: "6.14.0",
      InstanceName: "Default",
    });
  });

  it("an unknown id is a NotFoundError, a bad one is refused without a request", async () => {
    const c = client();
    await expect(c.metadata.application(987654)).rejects.toThrow(NotFoundError);
    const before = c.stats().requests;
    await expect(c.metadata.eventRule(Number.POSITIVE_INFINITY)).rejects.toThrow(InvalidArgumentError);
    expect(c.stats().requests).toBe(before);
  });
});
