import { describe, expect, it } from "vitest";
import { startEmulator } from "../../src/emulator/index.ts";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import {
  Application,
  EventAction,
  EventRule,
  FieldDefinition,
  Level,
  LevelLayout,
  Questionnaire,
  QuestionnaireRule,
} from "../../src/wire/index.ts";
import { moduleTree } from "../helpers/packages.ts";
import { type Json, Raw, useEmulator } from "../helpers/raw.ts";

const LEVEL_KEYS = [
  "Id",
  "Guid",
  "ModuleId",
  "ModuleName",
  "Name",
  "Description",
  "Alias",
  "AllowFilter",
  "ASOStatus",
  "IsDeleted",
  "Translations",
  "UpdateInformation",
];

async function list(raw: Raw, token: string, path: string): Promise<Json[]> {
  const response = await raw.read(path, token);
  expect(response.status, `${path}: ${response.text}`).toBe(200);
  expect(Array.isArray(response.body)).toBe(true);
  for (const envelope of response.body) expect(envelope.IsSuccessful).toBe(true);
  return response.body.map((e: Json) => e.RequestedObject);
}

async function one(raw: Raw, token: string, path: string): Promise<Json> {
  const response = await raw.read(path, token);
  expect(response.status, `${path}: ${response.text}`).toBe(200);
  expect(response.body.IsSuccessful).toBe(true);
  return response.body.RequestedObject;
}

describe("metadata reads on demo-dev", () => {
  const { raw } = useEmulator({ seed: "demo-dev" });

  it("applications: applications and sub-forms with the seed's fields", async () => {
    const token = await raw().token();
    const apps = await list(raw(), token, "/core/system/application");
    expect(apps.map((a) => a.Name).sort()).toEqual(
      ["Comments", "Controls", "Findings", "Policies", "Risk Register", "Third Parties"].sort(),
    );
    for (const app of apps) expect(Application.strict().safeParse(app).success).toBe(true);
    expect(apps.find((a) => a.Name === "Comments")?.Type).toBe("SubForm");
    const risks = apps.find((a) => a.Name === "Risk Register");
    expect(risks).toMatchObject({
      Guid: demoGuid("risks"),
      Alias: "Risk_Register",
      KeepLicensed: true,
      IsDeprecated: false,
      Description: "<p>The enterprise risk register.</p>",
    });
    expect(await one(raw(), token, `/core/system/application/${risks.Id}`)).toEqual(risks);
  });

  it("questionnaires have reads of their own and are not applications", async () => {
    const token = await raw().token();
    const [questionnaire, ...others] = await list(raw(), token, "/core/system/questionnaire");
    expect(others).toEqual([]);
    expect(Questionnaire.strict().parse(questionnaire).Name).toBe("Vendor Risk Assessment");
    expect(await one(raw(), token, `/core/system/questionnaire/${questionnaire.Id}`)).toEqual(questionnaire);
    expect((await raw().read(`/core/system/application/${questionnaire.Id}`, token)).status).toBe(404);
    const apps = await list(raw(), token, "/core/system/application");
    expect((await raw().read(`/core/system/questionnaire/${apps[0].Id}`, token)).status).toBe(404);
  });

  it("levels: all, by id and by module, in the shape real instances return", async () => {
    const token = await raw().token();
    const levels = await list(raw(), token, "/core/system/level");
    expect(levels.length).toBe(8);
    for (const level of levels) {
      expect(Object.keys(level).sort()).toEqual([...LEVEL_KEYS].sort());
      expect(Level.strict().safeParse(level).success).toBe(true);
      expect(level.IsDeleted).toBe(false);
    }
    const policies = (await list(raw(), token, "/core/system/application")).find(
      (a) => a.Name === "Policies",
    );
    const byModule = await list(raw(), token, `/core/system/level/module/${policies.Id}`);
    expect(byModule.map((l) => l.Name)).toEqual(["Policy", "Policy Section"]);
    expect(byModule.every((l) => l.ModuleId === policies.Id && l.ModuleName === "Policies")).toBe(true);
    expect(await one(raw(), token, `/core/system/level/${byModule[1].Id}`)).toEqual(byModule[1]);
  });

  it("fields: type codes, activity, values lists, references and sub-forms", async () => {
    const token = await raw().token();
    const risk = (await list(raw(), token, "/core/system/level")).find((l) => l.Name === "Risk");
    const fields = await list(raw(), token, `/core/system/fielddefinition/level/${risk.Id}`);
    for (const field of fields) expect(FieldDefinition.strict().safeParse(field).success).toBe(true);
    // In the wire schema's order, so that the client keeps each read as parsed (schema/as-is.ts).
    for (const field of fields) expect(Object.keys(field)).toEqual(Object.keys(FieldDefinition.shape));
    const byAlias = new Map(fields.map((f) => [f.Alias, f]));
    expect(byAlias.get("Risk_Name")).toMatchObject({
      Type: 1,
      IsRequired: true,
      IsActive: true,
      LevelId: risk.Id,
    });
    expect(byAlias.get("Likelihood")?.ValuesListValues.map((v: Json) => v.Name)).toEqual([
      "Rare",
      "Unlikely",
      "Possible",
      "Likely",
      "Almost Certain",
    ]);
    const comments = (await list(raw(), token, "/core/system/application")).find(
      (a) => a.Name === "Comments",
    );
    expect(byAlias.get("Comments")).toMatchObject({ Type: 24, RelatedSubformId: comments.Id });
    const score = byAlias.get("Risk_Score");
    expect(await one(raw(), token, `/core/system/fielddefinition/${score.Id}`)).toEqual(score);
    const types = new Set(
      (
        await Promise.all(
          (
            await list(raw(), token, "/core/system/level")
          ).map((l) => list(raw(), token, `/core/system/fielddefinition/level/${l.Id}`)),
        )
      )
        .flat()
        .map((f) => f.Type),
    );
    expect([...types].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 7, 8, 9, 11, 12, 16, 19, 23, 24]);
  });

  it("levels targeted by a reference field: a collection; a questionnaire's target gives one", async () => {
    const token = await raw().token();
    const levels = await list(raw(), token, "/core/system/level");
    const finding = levels.find((l) => l.Name === "Finding");
    const fields = await list(raw(), token, `/core/system/fielddefinition/level/${finding.Id}`);
    const related = fields.find((f) => f.Alias === "Related_Items");
    const targets = await list(raw(), token, `/core/system/level/referencefield/${related.Id}`);
    expect(targets.map((l) => l.Name).sort()).toEqual(["Control", "Risk"]);

    const [questionnaire] = await list(raw(), token, "/core/system/questionnaire");
    const target = await list(
      raw(),
      token,
      `/core/system/level/referencefield/${questionnaire.TargetFieldId}`,
    );
    expect(target.map((l) => l.Name)).toEqual(["Third Party"]);

    const text = fields.find((f) => f.Type === 1);
    const notReference = await raw().read(`/core/system/level/referencefield/${text.Id}`, token);
    expect(notReference.status).toBe(400);
    expect(notReference.body.ValidationMessages[0].MessageKey).toBe("NotAReferenceField");
  });

  it("layouts place the level's own fields, section by section", async () => {
    const token = await raw().token();
    const control = (await list(raw(), token, "/core/system/level")).find((l) => l.Name === "Control");
    const layout = await one(raw(), token, `/core/system/levellayout/level/${control.Id}`);
    expect(LevelLayout.strict().safeParse(layout).success).toBe(true);
    expect(layout.LevelId).toBe(control.Id);
    expect(layout.Sections.map((s: Json) => s.Name)).toEqual([
      "General",
      "Testing",
      "Relationships",
      "Discussion",
    ]);
    const own = new Set(
      (await list(raw(), token, `/core/system/fielddefinition/level/${control.Id}`)).map((f) => f.Id),
    );
    expect(layout.Sections.flatMap((s: Json) => s.FieldIds).every((id: number) => own.has(id))).toBe(true);
  });

  it("event rules by level and id; event actions by rule and id reference the rule by id", async () => {
    const token = await raw().token();
    const risk = (await list(raw(), token, "/core/system/level")).find((l) => l.Name === "Risk");
    const [rule] = await list(raw(), token, `/core/system/eventrule/level/${risk.Id}`);
    expect(EventRule.strict().parse(rule)).toMatchObject({
      Name: "Escalate critical risks",
      LevelId: risk.Id,
    });
    expect(await one(raw(), token, `/core/system/eventrule/${rule.Id}`)).toEqual(rule);
    const actions = await list(raw(), token, `/core/system/eventaction/eventrule/${rule.Id}`);
    expect(actions.map((a) => a.Name)).toEqual(["Notify risk owner", "Require treatment controls"]);
    for (const action of actions) {
      expect(EventAction.strict().safeParse(action).success).toBe(true);
      expect(action.EventRuleId).toBe(rule.Id);
    }
    expect(await one(raw(), token, `/core/system/eventaction/${actions[0].Id}`)).toEqual(actions[0]);
  });

  it("questionnaire rules by level and by id", async () => {
    const token = await raw().token();
    const [questionnaire] = await list(raw(), token, "/core/system/questionnaire");
    const [level] = await list(raw(), token, `/core/system/level/module/${questionnaire.Id}`);
    const rules = await list(raw(), token, `/core/system/questionnairerule/level/${level.Id}`);
    expect(rules.map((r) => r.Name)).toEqual(["High inherent risk", "Missing security contact"]);
    for (const rule of rules) expect(QuestionnaireRule.strict().safeParse(rule).success).toBe(true);
    expect(await one(raw(), token, `/core/system/questionnairerule/${rules[0].Id}`)).toEqual(rules[0]);
    const risk = (await list(raw(), token, "/core/system/level")).find((l) => l.Name === "Risk");
    expect(await list(raw(), token, `/core/system/questionnairerule/level/${risk.Id}`)).toEqual([]);
  });

  it("the instance version", async () => {
    const token = await raw().token();
    expect(await one(raw(), token, "/core/system/applicationinfo/version")).toMatchObject({
      Version: "6.14.0",
    });
  });

  it("unknown ids are 404, ids that are not numbers 400, every read needs a session", async () => {
    const token = await raw().token();
    const paths = [
      "/core/system/level/99999",
      "/core/system/level/module/99999",
      "/core/system/level/referencefield/99999",
      "/core/system/levellayout/level/99999",
      "/core/system/eventaction/99999",
      "/core/system/eventaction/eventrule/99999",
      "/core/system/eventrule/99999",
      "/core/system/eventrule/level/99999",
      "/core/system/questionnaire/99999",
      "/core/system/questionnairerule/99999",
      "/core/system/questionnairerule/level/99999",
      "/core/system/application/99999",
      "/core/system/fielddefinition/99999",
      "/core/system/fielddefinition/level/99999",
    ];
    for (const path of paths) {
      const response = await raw().read(path, token);
      expect(response.status, path).toBe(404);
      expect(response.body.IsSuccessful).toBe(false);
    }
    const bad = await raw().read("/core/system/level/abc", token);
    expect(bad.status).toBe(400);
    expect(bad.body.ValidationMessages[0].MessageKey).toBe("InvalidId");
    expect((await raw().read("/core/system/level", "")).status).toBe(401);
  });

  it("reads answer a plain GET, and a POST without the override is 405", async () => {
    const token = await raw().token();
    const get = await raw().call("/core/system/level", { token });
    expect(get.status).toBe(200);
    const post = await raw().call("/core/system/level", { method: "POST", token });
    expect(post.status).toBe(405);
  });

  it("collections serialize to XML when Accept prefers it", async () => {
    const token = await raw().token();
    const response = await raw().read("/core/system/application", token, {
      headers: { accept: "application/xml" },
    });
    expect(response.text).toContain("<ArrayOfResponseEnvelope>");
    expect(response.text).toContain("<Name>Risk Register</Name>");
  });
});

describe("demo-prod is the same catalogue, older", () => {
  const dev = useEmulator({ seed: "demo-dev" });
  const prod = useEmulator({ seed: "demo-prod" });

  it("same GUIDs, other ids; Findings missing; Controls fewer fields and an older layout; one rule differs", async () => {
    const devToken = await dev.raw().token();
    const prodToken = await prod.raw().token();
    const devApps = await list(dev.raw(), devToken, "/core/system/application");
    const prodApps = await list(prod.raw(), prodToken, "/core/system/application");
    expect(prodApps.map((a) => a.Guid).sort()).toEqual(
      devApps
        .filter((a) => a.Name !== "Findings")
        .map((a) => a.Guid)
        .sort(),
    );
    for (const app of prodApps) {
      const twin = devApps.find((a) => a.Guid === app.Guid);
      expect(app.Id).not.toBe(twin.Id);
    }

    const devControls = await moduleTree(dev.raw(), devToken, demoGuid("controls"));
    const prodControls = await moduleTree(prod.raw(), prodToken, demoGuid("controls"));
    const active = (tree: Json) => tree.Levels[0].Fields.filter((f: Json) => f.IsActive).length;
    expect(active(prodControls)).toBeLessThan(active(devControls));
    expect(prodControls.Levels[0].Layout).not.toEqual(devControls.Levels[0].Layout);

    const devRisks = await moduleTree(dev.raw(), devToken, demoGuid("risks"));
    const prodRisks = await moduleTree(prod.raw(), prodToken, demoGuid("risks"));
    const rule = (tree: Json) => tree.Levels[0].EventRules[0];
    expect(rule(prodRisks).Guid).toBe(rule(devRisks).Guid);
    expect(rule(prodRisks).Condition).not.toBe(rule(devRisks).Condition);
    expect(prodRisks.Levels[0].Fields).toEqual(
      devRisks.Levels[0].Fields.map((f: Json) => ({ ...f, Translations: [] })),
    );

    for (const guid of [demoGuid("policies"), demoGuid("comments"), demoGuid("vendors")]) {
      expect(await moduleTree(prod.raw(), prodToken, guid)).toEqual(
        await moduleTree(dev.raw(), devToken, guid),
      );
    }
  });
});

describe("scale seed", () => {
  it("builds M applications deterministically", async () => {
    const first = await startEmulator({ port: 0, seed: "scale:users=2,apps=200" });
    const second = await startEmulator({ port: 0, seed: "scale:apps=200" });
    try {
      const a = new Raw(first.url);
      const b = new Raw(second.url);
      const appsA = await list(a, await a.token(), "/core/system/application");
      const appsB = await list(b, await b.token(), "/core/system/application");
      expect(appsA.length).toBe(200);
      expect(appsA.map((x) => x.Guid)).toEqual(appsB.map((x) => x.Guid));
      const levels = await list(a, await a.token(), "/core/system/level");
      expect(levels.length).toBe(200 + Math.floor(200 / 3));
      const tokenA = await a.token();
      const last = appsA.at(-1);
      const tree = await moduleTree(a, tokenA, last.Guid);
      expect(tree.Levels[0].EventRules[0].Actions.length).toBe(1);
      expect(tree.Levels[0].Fields.length).toBeGreaterThanOrEqual(5);
    } finally {
      await first.close();
      await second.close();
    }
  });
});
