import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import {
  createPackage,
  download,
  generateAndWait,
  install,
  installAndWait,
  packageInfo,
  until,
  upload,
} from "../helpers/packages.ts";
import { type Json, type Raw, useEmulator } from "../helpers/raw.ts";
import { type RawEntry, rawZip, readZipEntries } from "../helpers/zip.ts";

/*
 * The installer refuses what a real instance refuses, so that a plan tested here fails here first: two fields with one alias in a
 * level, a second application with an existing name, a GUID used twice in the package or for
 * another kind of object on the target. Each is refused with a validation message and installs
 * nothing of the package, whether the conflict is there when the install is requested (400) or
 * appears before its job runs (the job fails).
 */

const work = mkdtempSync(join(tmpdir(), "egp-conflicts-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const RISKS = demoGuid("risks");
const { raw } = useEmulator({ seed: "demo-dev", jobs: { generateMs: 20, installMs: 250 } });
let token = "";
let entries: RawEntry[] = [];
let risks: Json;

beforeAll(async () => {
  token = await raw().token();
  const id = await createPackage(raw(), token, {
    Name: "risks",
    PackageObjects: [{ Guid: RISKS, Type: "Application" }],
  });
  await generateAndWait(raw(), token, id);
  const file = join(work, "risks.zip");
  await download(raw(), token, id, file);
  entries = [...(await readZipEntries(file))].map(([name, data]) => ({ name, data, deflate: true }));
  risks = JSON.parse(String(entries.find((e) => e.name === `objects/${RISKS}.json`)?.data));
});

let count = 0;

/** Uploads a package holding `module` (an application tree) in place of Risk Register's. */
async function uploadModule(module: Json): Promise<number> {
  const guid = String(module.Guid).toLowerCase();
  const manifest = JSON.parse(String(entries.find((e) => e.name === "manifest.json")?.data));
  manifest.Objects = [{ Guid: guid, Type: "Application", Name: module.Name, File: `objects/${guid}.json` }];
  const zip = rawZip([
    { name: "manifest.json", data: Buffer.from(JSON.stringify(manifest)), deflate: true },
    {
      name: `objects/${guid}.json`,
      data: Buffer.from(JSON.stringify({ Type: "Application", Module: module })),
      deflate: true,
    },
  ]);
  const file = join(work, `edited-${++count}.zip`);
  writeFileSync(file, zip);
  const response = await upload(raw(), token, file);
  expect(response.status, response.text).toBe(200);
  return response.body.RequestedObject.Id;
}

const copy = (): Json => structuredClone(risks.Module);

/** A GUID derived from another, so that a renamed tree keeps its own references consistent. */
function derived(guid: string, salt: string): string {
  const hex = createHash("sha256").update(`${salt}:${guid.toLowerCase()}`).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Risk Register's tree with every GUID it defines replaced: a new application, same names. */
function fresh(salt: string, name?: string): Json {
  const module = copy();
  const own = new Set<string>([module.Guid.toLowerCase()]);
  for (const level of module.Levels) {
    own.add(level.Guid.toLowerCase());
    if (level.Layout) own.add(level.Layout.Guid.toLowerCase());
    for (const field of level.Fields) {
      own.add(field.Guid.toLowerCase());
      for (const value of field.Values) own.add(value.Guid.toLowerCase());
    }
    for (const rule of level.EventRules) {
      own.add(rule.Guid.toLowerCase());
      for (const action of rule.Actions) own.add(action.Guid.toLowerCase());
    }
    for (const rule of level.QuestionnaireRules) own.add(rule.Guid.toLowerCase());
  }
  const text = JSON.stringify(module).replace(
    /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi,
    (g) => (own.has(g.toLowerCase()) ? derived(g, salt) : g),
  );
  const out = JSON.parse(text);
  if (name) out.Name = name;
  return out;
}

/** The target's whole catalogue as the metadata reads show it. */
async function catalogue(raw: Raw): Promise<Json> {
  const read = async (path: string) => (await raw.read(path, token)).body;
  const levels = await read("/core/system/level");
  const fields = [];
  for (const level of levels)
    fields.push(await read(`/core/system/fielddefinition/level/${level.RequestedObject.Id}`));
  return {
    applications: await read("/core/system/application"),
    questionnaires: await read("/core/system/questionnaire"),
    levels,
    fields,
  };
}

/** Installs package `id`; expects 400 with `key` and an unchanged catalogue; returns the messages. */
async function refused(id: number, key: string): Promise<Json[]> {
  const before = await catalogue(raw());
  const response = await install(raw(), token, { PackageId: id });
  expect(response.status, response.text).toBe(400);
  expect(response.body.IsSuccessful).toBe(false);
  const keys = response.body.ValidationMessages.map((m: Json) => m.MessageKey);
  expect(keys).toContain(key);
  expect((await packageInfo(raw(), token, id)).Installs).toEqual([]);
  expect(await catalogue(raw())).toEqual(before);
  return response.body.ValidationMessages.filter((m: Json) => m.MessageKey === key);
}

describe("the installer refuses conflicts a real instance refuses", () => {
  it("the unedited package installs (the control case)", async () => {
    const id = await uploadModule(copy());
    expect((await installAndWait(raw(), token, { PackageId: id })).Status).toBe("Succeeded");
  });

  it("two fields with the same alias in one level of the package", async () => {
    const module = copy();
    const [first, second] = module.Levels[0].Fields;
    second.Alias = first.Alias.toUpperCase();
    const [message] = await refused(await uploadModule(module), "DuplicateAlias");
    expect(message.Description).toContain(first.Guid);
    expect(message.Description).toContain(second.Guid);
  });

  it("a new field whose alias a field of the target's level already has", async () => {
    const module = copy();
    const level = module.Levels[0];
    const kept = level.Fields[0];
    // The package leaves the target's field out and brings another with its alias.
    level.Fields = level.Fields.slice(1).concat({ ...kept, Guid: derived(kept.Guid, "twin"), Values: [] });
    for (const rule of level.EventRules) rule.ConditionFieldGuids = [];
    for (const rule of level.EventRules) for (const action of rule.Actions) action.TargetFieldGuids = [];
    if (level.Layout) level.Layout.Sections = [];
    const [message] = await refused(await uploadModule(module), "DuplicateAlias");
    expect(message.Description).toContain(kept.Guid);
  });

  it("a second application with the name of an existing one", async () => {
    const module = fresh("second");
    const [message] = await refused(await uploadModule(module), "DuplicateName");
    expect(message.Description).toContain(RISKS);
    expect(message.Description).toContain(module.Guid);
    // The same tree under a name of its own installs.
    const renamed = await uploadModule(fresh("second", "Risk Register (copy)"));
    expect((await installAndWait(raw(), token, { PackageId: renamed })).Status).toBe("Succeeded");
  });

  it("the same field GUID twice in the package", async () => {
    const module = copy();
    const fields = module.Levels[0].Fields;
    fields[1].Guid = fields[0].Guid.toUpperCase();
    const [message] = await refused(await uploadModule(module), "DuplicateGuid");
    expect(message.Description.toLowerCase()).toContain(fields[0].Guid.toLowerCase());
  });

  it("a field GUID that is another kind of object on the target", async () => {
    const module = copy();
    const findings = demoGuid("findings");
    module.Levels[0].Fields[0].Guid = findings;
    const [message] = await refused(await uploadModule(module), "GuidConflict");
    expect(message.Description).toContain("is a module on this instance");
  });

  it("a conflict that appears while the install waits fails its job and installs nothing of it", async () => {
    const first = await uploadModule(fresh("queued-a", "Twin"));
    const second = await uploadModule(fresh("queued-b", "Twin"));
    expect((await install(raw(), token, { PackageId: first })).status).toBe(200);
    // The first job has not run yet, so the second's dry run sees no conflict and is queued.
    const queued = await install(raw(), token, { PackageId: second });
    expect(queued.status, queued.text).toBe(200);
    const job = await until(async () => {
      const latest = (await packageInfo(raw(), token, second)).Installs.at(-1);
      return latest.Status === "Succeeded" || latest.Status === "Failed" ? latest : undefined;
    }, "the second install job");
    expect(job.Status).toBe("Failed");
    expect(job.ValidationMessages.map((m: Json) => m.MessageKey)).toEqual(["DuplicateName"]);
    const twins = (await raw().read("/core/system/application", token)).body.filter(
      (a: Json) => a.RequestedObject.Name === "Twin",
    );
    expect(twins.map((a: Json) => a.RequestedObject.Guid)).toEqual([fresh("queued-a").Guid]);
  });
});
