import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, onTestFinished } from "vitest";
import { type EmulatorOptionsInput, startEmulator } from "../../src/emulator/index.ts";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import {
  applications,
  createPackage,
  download,
  generate,
  generateAndWait,
  install,
  installAndWait,
  moduleTree,
  packageInfo,
  until,
  upload,
} from "../helpers/packages.ts";
import { type Json, Raw, useEmulator } from "../helpers/raw.ts";
import { readZipEntries } from "../helpers/zip.ts";

const FAST = { jobs: { generateMs: 50, installMs: 100 } } satisfies EmulatorOptionsInput;

const GUID = {
  comments: demoGuid("comments"),
  policies: demoGuid("policies"),
  controls: demoGuid("controls"),
  risks: demoGuid("risks"),
  findings: demoGuid("findings"),
  vendors: demoGuid("vendors"),
  assessment: demoGuid("vendor-assessment"),
  report: demoGuid("report/open-high-risks"),
  legacyField: demoGuid("controls/control/legacy-id"),
};

const PROMOTED = [
  { Guid: GUID.comments, Type: "SubForm" },
  { Guid: GUID.controls, Type: "Application" },
  { Guid: GUID.risks, Type: "Application" },
  { Guid: GUID.findings, Type: "Application" },
  { Guid: GUID.assessment, Type: "Application" },
  { Guid: GUID.report, Type: "GlobalReport" },
];

const work = mkdtempSync(join(tmpdir(), "egp-packages-test-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let fileCount = 0;
const tempFile = () => join(work, `download-${++fileCount}.zip`);

function installBody(packageId: number, choice: Json = {}, extra: Json = {}): Json {
  return {
    PackageId: packageId,
    InactivateUnusedFields: false,
    PrefixInactivatedFields: null,
    InstallOptions: PROMOTED.map((o) => ({
      Guid: o.Guid,
      Name: o.Guid,
      Type: o.Type,
      TranslationOption: 1,
      InstallMethod: 2,
      InstallOption: 2,
      ...choice,
    })),
    ...extra,
  };
}

/** Starts dev and prod emulators for one test. */
async function pair(options: EmulatorOptionsInput = FAST) {
  const dev = await startEmulator({ port: 0, seed: "demo-dev", ...options });
  const prod = await startEmulator({ port: 0, seed: "demo-prod", ...options });
  onTestFinished(async () => {
    await dev.close();
    await prod.close();
  });
  const devRaw = new Raw(dev.url);
  const prodRaw = new Raw(prod.url);
  return { devRaw, prodRaw, devToken: await devRaw.token(), prodToken: await prodRaw.token() };
}

/** Creates, generates and downloads a package on `source`, then uploads it to `target`. */
async function promote(
  source: Raw,
  sourceToken: string,
  target: Raw,
  targetToken: string,
  objects: Json[] = PROMOTED,
): Promise<{ file: string; targetId: number }> {
  const id = await createPackage(source, sourceToken, {
    Name: "Q1 release",
    Description: "Findings and related objects",
    PreparedBy: "release engineer",
    PackageObjects: objects,
  });
  await generateAndWait(source, sourceToken, id);
  const file = tempFile();
  const got = await download(source, sourceToken, id, file);
  expect(got.status).toBe(200);
  const uploaded = await upload(target, targetToken, file);
  expect(uploaded.status).toBe(200);
  return { file, targetId: uploaded.body.RequestedObject.Id };
}

/** Every metadata read of an instance, raw (ids and UpdateInformation included). */
async function snapshot(raw: Raw, token: string): Promise<Json> {
  const read = async (path: string) => (await raw.read(path, token)).body;
  const levels = await read("/core/system/level");
  const perLevel = [];
  for (const level of levels) {
    const id = level.RequestedObject.Id;
    perLevel.push({
      fields: await read(`/core/system/fielddefinition/level/${id}`),
      layout: await read(`/core/system/levellayout/level/${id}`),
      rules: await read(`/core/system/eventrule/level/${id}`),
      questionnaireRules: await read(`/core/system/questionnairerule/level/${id}`),
    });
  }
  return {
    applications: await read("/core/system/application"),
    questionnaires: await read("/core/system/questionnaire"),
    levels,
    perLevel,
  };
}

function withoutFields(tree: Json, guids: Set<string>): Json {
  return {
    ...tree,
    Levels: tree.Levels.map((l: Json) => ({
      ...l,
      Fields: l.Fields.filter((f: Json) => !guids.has(f.Guid)),
    })),
  };
}

describe("package round trip, demo-dev → demo-prod", () => {
  const dev = useEmulator({ seed: "demo-dev", ...FAST });
  const prod = useEmulator({ seed: "demo-prod", ...FAST });

  it("create → generate → download → upload → install makes prod's trees equal dev's", async () => {
    const devRaw = dev.raw();
    const prodRaw = prod.raw();
    const devToken = await devRaw.token();
    const prodToken = await prodRaw.token();
    const modules = [GUID.comments, GUID.controls, GUID.risks, GUID.findings, GUID.assessment];

    const prodBefore = await applications(prodRaw, prodToken);
    expect(prodBefore.map((a) => a.Guid)).not.toContain(GUID.findings);
    expect(await moduleTree(prodRaw, prodToken, GUID.risks)).not.toEqual(
      await moduleTree(devRaw, devToken, GUID.risks),
    );

    const { file, targetId } = await promote(devRaw, devToken, prodRaw, prodToken);
    const entries = await readZipEntries(file);
    expect([...entries.keys()].sort()).toEqual(
      ["manifest.json", ...PROMOTED.map((o) => `objects/${o.Guid}.json`)].sort(),
    );

    const job = await installAndWait(
      prodRaw,
      prodToken,
      installBody(targetId, {}, { InactivateUnusedFields: true, PrefixInactivatedFields: "zz_" }),
    );
    expect(job.ValidationMessages).toEqual([]);
    expect(job.Status).toBe("Succeeded");

    const prodApps = await applications(prodRaw, prodToken);
    const devApps = await applications(devRaw, devToken);
    const findingsOnProd = prodApps.find((a) => a.Guid === GUID.findings);
    const findingsOnDev = devApps.find((a) => a.Guid === GUID.findings);
    expect(findingsOnProd?.Name).toBe("Findings");
    // Same GUID, another id: the trees below only match once ids are mapped to GUIDs.
    expect(findingsOnProd?.Id).not.toBe(findingsOnDev?.Id);

    for (const guid of modules) {
      const source = await moduleTree(devRaw, devToken, guid);
      const target = await moduleTree(prodRaw, prodToken, guid);
      if (guid === GUID.controls) {
        // Prod's legacy field is not in the package: kept, but inactive and renamed.
        expect(withoutFields(target, new Set([GUID.legacyField]))).toEqual(source);
        const legacy = target.Levels[0].Fields.find((f: Json) => f.Guid === GUID.legacyField);
        expect(legacy).toMatchObject({ IsActive: false, Name: "zz_Legacy Control ID" });
      } else {
        expect(target).toEqual(source);
      }
    }

    // Global reports have no read: packaging the report on prod proves it is there, and the
    // package file shows the same tree as dev's.
    const back = await createPackage(prodRaw, prodToken, {
      Name: "check",
      PackageObjects: [{ Guid: GUID.report, Type: "GlobalReport" }],
    });
    await generateAndWait(prodRaw, prodToken, back);
    const prodFile = tempFile();
    await download(prodRaw, prodToken, back, prodFile);
    const reportEntry = `objects/${GUID.report}.json`;
    expect(JSON.parse(String((await readZipEntries(prodFile)).get(reportEntry)))).toEqual(
      JSON.parse(String(entries.get(reportEntry))),
    );
  });

  it("reinstalling the same package changes nothing, not even UpdateInformation", async () => {
    const devToken = await dev.raw().token();
    const prodToken = await prod.raw().token();
    const { targetId } = await promote(dev.raw(), devToken, prod.raw(), prodToken);
    const body = installBody(targetId, {}, { InactivateUnusedFields: true, PrefixInactivatedFields: "zz_" });
    expect((await installAndWait(prod.raw(), prodToken, body)).Status).toBe("Succeeded");
    const before = await snapshot(prod.raw(), prodToken);
    expect((await installAndWait(prod.raw(), prodToken, body)).Status).toBe("Succeeded");
    expect(await snapshot(prod.raw(), prodToken)).toEqual(before);
    const legacy = await prod.raw().read(`/core/system/fielddefinition/${legacyFieldId(before)}`, prodToken);
    // The prefix is never applied twice.
    expect(legacy.body.RequestedObject.Name).toBe("zz_Legacy Control ID");
  });

  it("download answers the file with application/zip and Content-Disposition", async () => {
    const token = await dev.raw().token();
    const id = await createPackage(dev.raw(), token, {
      Name: "Risk Register / Q1",
      PackageObjects: [{ Guid: GUID.risks, Type: "Application" }],
    });
    await generateAndWait(dev.raw(), token, id);
    const file = tempFile();
    const got = await download(dev.raw(), token, id, file);
    expect(got.headers["content-type"]).toBe("application/zip");
    expect(got.headers["content-disposition"]).toBe('attachment; filename="Risk_Register_Q1.zip"');
    const manifest = JSON.parse(String((await readZipEntries(file)).get("manifest.json")));
    expect(manifest).toMatchObject({
      FormatVersion: 1,
      Name: "Risk Register / Q1",
      SourceInstance: "Default",
      Objects: [
        { Guid: GUID.risks, Type: "Application", Name: "Risk Register", File: `objects/${GUID.risks}.json` },
      ],
    });
    // References inside the file are GUIDs, never ids.
    const tree = JSON.parse(String((await readZipEntries(file)).get(`objects/${GUID.risks}.json`)));
    const controls = tree.Module.Levels[0].Fields.find((f: Json) => f.Alias === "Related_Controls");
    expect(controls.ReferencedLevelGuids).toEqual([demoGuid("controls/control")]);
    const idKeys = [...JSON.stringify(tree).matchAll(/"(\w*Ids?)":/g)].map((m) => m[1]);
    expect(new Set(idKeys)).toEqual(new Set(["LanguageId"]));
  });
});

function legacyFieldId(snapshot: Json): number {
  for (const level of snapshot.perLevel) {
    for (const envelope of level.fields) {
      if (envelope.RequestedObject.Guid === GUID.legacyField) return envelope.RequestedObject.Id;
    }
  }
  throw new Error("legacy field not found");
}

describe("package jobs", () => {
  it("download before generation finishes is an error envelope", async () => {
    const { devRaw, devToken } = await pair({ jobs: { generateMs: 1500, installMs: 100 } });
    const id = await createPackage(devRaw, devToken, {
      Name: "slow",
      PackageObjects: [{ Guid: GUID.findings, Type: "Application" }],
    });
    const early = await download(devRaw, devToken, id, tempFile());
    expect(early.status).toBe(409);
    expect(JSON.parse(early.text ?? "")).toMatchObject({
      IsSuccessful: false,
      ValidationMessages: [{ MessageKey: "PackageNotReady" }],
    });
    expect((await generate(devRaw, devToken, id)).status).toBe(200);
    expect((await packageInfo(devRaw, devToken, id)).Status).toBe("Generating");
    const during = await download(devRaw, devToken, id, tempFile());
    expect(during.status).toBe(409);
    expect(during.text).toContain("still being generated");
    await until(
      async () => ((await packageInfo(devRaw, devToken, id)).Status === "Ready" ? true : undefined),
      "ready",
    );
    expect((await download(devRaw, devToken, id, tempFile())).status).toBe(200);
  });

  it("--faults jobMs overrides the job durations (slow jobs for chaos runs)", async () => {
    const { devRaw, devToken } = await pair({
      jobs: { generateMs: 10, installMs: 10 },
      faults: { jobMs: 1000 },
    });
    const id = await createPackage(devRaw, devToken, {
      Name: "slowed",
      PackageObjects: [{ Guid: GUID.risks, Type: "Application" }],
    });
    const started = Date.now();
    await generateAndWait(devRaw, devToken, id);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it("metadata is unchanged until the install job completes; installs run one at a time", async () => {
    const { devRaw, devToken, prodRaw, prodToken } = await pair({
      jobs: { generateMs: 50, installMs: 1200 },
    });
    const { targetId } = await promote(devRaw, devToken, prodRaw, prodToken);
    const before = await snapshot(prodRaw, prodToken);
    expect((await install(prodRaw, prodToken, installBody(targetId))).status).toBe(200);
    expect((await install(prodRaw, prodToken, installBody(targetId))).status).toBe(200);
    const queued = await packageInfo(prodRaw, prodToken, targetId);
    expect(queued.Installs.map((j: Json) => j.Status)).toEqual(["Running", "Queued"]);
    expect(await snapshot(prodRaw, prodToken)).toEqual(before);

    const first = await until(async () => {
      const job = (await packageInfo(prodRaw, prodToken, targetId)).Installs[0];
      return job.Status === "Succeeded" ? job : undefined;
    }, "first install");
    expect((await applications(prodRaw, prodToken)).map((a) => a.Guid)).toContain(GUID.findings);
    const second = await until(async () => {
      const job = (await packageInfo(prodRaw, prodToken, targetId)).Installs[1];
      return job.Status === "Succeeded" ? job : undefined;
    }, "second install");
    expect(Date.parse(second.StartedDate)).toBeGreaterThanOrEqual(Date.parse(first.FinishedDate));
  });
});

describe("install options", () => {
  it("InstallMethod 1 creates new objects and leaves existing ones untouched", async () => {
    const { devRaw, devToken, prodRaw, prodToken } = await pair();
    const controlsBefore = await moduleTree(prodRaw, prodToken, GUID.controls);
    const { targetId } = await promote(devRaw, devToken, prodRaw, prodToken);
    await installAndWait(
      prodRaw,
      prodToken,
      installBody(targetId, { InstallMethod: 1 }, { InactivateUnusedFields: true }),
    );
    expect(await moduleTree(prodRaw, prodToken, GUID.controls)).toEqual(controlsBefore);
    expect(await moduleTree(prodRaw, prodToken, GUID.findings)).toEqual(
      await moduleTree(devRaw, devToken, GUID.findings),
    );
  });

  it("InstallOption 1 keeps the target's layout; 2 overrides it", async () => {
    const { devRaw, devToken, prodRaw, prodToken } = await pair();
    const layoutOf = (tree: Json) => tree.Levels[0].Layout;
    const before = await moduleTree(prodRaw, prodToken, GUID.controls);
    const { targetId } = await promote(devRaw, devToken, prodRaw, prodToken);
    await installAndWait(prodRaw, prodToken, installBody(targetId, { InstallOption: 1 }));
    const kept = await moduleTree(prodRaw, prodToken, GUID.controls);
    expect(layoutOf(kept)).toEqual(layoutOf(before));
    // The fields are installed all the same.
    expect(kept.Levels[0].Fields.map((f: Json) => f.Name)).toContain("Test Result");
    // A level that is new on the target gets the package's layout whatever the option.
    const findings = await moduleTree(prodRaw, prodToken, GUID.findings);
    expect(layoutOf(findings)).toEqual(layoutOf(await moduleTree(devRaw, devToken, GUID.findings)));

    await installAndWait(prodRaw, prodToken, installBody(targetId, { InstallOption: 2 }));
    const devControls = await moduleTree(devRaw, devToken, GUID.controls);
    expect(layoutOf(await moduleTree(prodRaw, prodToken, GUID.controls))).toEqual(layoutOf(devControls));
  });

  it("TranslationOption 0 installs no translations; 1 installs them", async () => {
    const { devRaw, devToken, prodRaw, prodToken } = await pair();
    const { targetId } = await promote(devRaw, devToken, prodRaw, prodToken);
    const french = [{ LanguageId: 2, Name: "Registre des risques", Description: null }];
    await installAndWait(prodRaw, prodToken, installBody(targetId, { TranslationOption: 0 }));
    expect((await moduleTree(prodRaw, prodToken, GUID.risks)).Translations).toEqual([]);
    await installAndWait(prodRaw, prodToken, installBody(targetId, { TranslationOption: 1 }));
    expect((await moduleTree(prodRaw, prodToken, GUID.risks)).Translations).toEqual(french);
  });

  it("InactivateUnusedFields false keeps the target's extra fields active and named", async () => {
    const { devRaw, devToken, prodRaw, prodToken } = await pair();
    const { targetId } = await promote(devRaw, devToken, prodRaw, prodToken);
    await installAndWait(prodRaw, prodToken, installBody(targetId, {}, { PrefixInactivatedFields: "zz_" }));
    const legacy = (await moduleTree(prodRaw, prodToken, GUID.controls)).Levels[0].Fields.find(
      (f: Json) => f.Guid === GUID.legacyField,
    );
    expect(legacy).toMatchObject({ IsActive: true, Name: "Legacy Control ID" });
  });

  it("objects without install options get create-and-update, override layout, no translations", async () => {
    const { devRaw, devToken, prodRaw, prodToken } = await pair();
    const { targetId } = await promote(devRaw, devToken, prodRaw, prodToken);
    await installAndWait(prodRaw, prodToken, { PackageId: targetId });
    const risks = await moduleTree(prodRaw, prodToken, GUID.risks);
    const devRisks = await moduleTree(devRaw, devToken, GUID.risks);
    expect(risks.Translations).toEqual([]);
    expect(risks.Levels[0].EventRules).toEqual(devRisks.Levels[0].EventRules);
  });
});

describe("install validation", () => {
  it("a package referencing what the target lacks fails with a validation message and changes nothing", async () => {
    const dev = await startEmulator({ port: 0, seed: "demo-dev", ...FAST });
    const empty = await startEmulator({ port: 0, seed: "empty", ...FAST });
    onTestFinished(async () => {
      await dev.close();
      await empty.close();
    });
    const devRaw = new Raw(dev.url);
    const emptyRaw = new Raw(empty.url);
    const devToken = await devRaw.token();
    const emptyToken = await emptyRaw.token();
    const { targetId } = await promote(devRaw, devToken, emptyRaw, emptyToken, [
      { Guid: GUID.findings, Type: "Application" },
    ]);
    const before = await snapshot(emptyRaw, emptyToken);
    const response = await install(emptyRaw, emptyToken, { PackageId: targetId });
    expect(response.status).toBe(400);
    expect(response.body.IsSuccessful).toBe(false);
    const keys = response.body.ValidationMessages.map((m: Json) => m.MessageKey);
    expect(new Set(keys)).toEqual(new Set(["MissingReference"]));
    expect(response.body.ValidationMessages.map((m: Json) => m.Description).join("\n")).toContain(
      demoGuid("controls/control"),
    );
    expect(await snapshot(emptyRaw, emptyToken)).toEqual(before);
    expect((await packageInfo(emptyRaw, emptyToken, targetId)).Installs).toEqual([]);

    // With what it references in the same package, the install succeeds.
    const { targetId: whole } = await promote(devRaw, devToken, emptyRaw, emptyToken, [
      { Guid: GUID.findings, Type: "Application" },
      { Guid: GUID.controls, Type: "Application" },
      { Guid: GUID.risks, Type: "Application" },
      { Guid: GUID.policies, Type: "Application" },
      { Guid: GUID.comments, Type: "SubForm" },
    ]);
    expect((await installAndWait(emptyRaw, emptyToken, { PackageId: whole })).Status).toBe("Succeeded");
    expect(await moduleTree(emptyRaw, emptyToken, GUID.findings)).toEqual(
      await moduleTree(devRaw, devToken, GUID.findings),
    );
  });

  const { raw } = useEmulator({ seed: "demo-dev", ...FAST });

  it("create needs existing GUIDs and a known Type", async () => {
    const token = await raw().token();
    const create = (objects: Json) =>
      raw().call("/core/package", {
        method: "POST",
        token,
        prefix: "/api",
        body: { Name: "x", PackageObjects: objects },
      });
    const unknown = await create([{ Guid: "00000000-0000-0000-0000-000000000000", Type: "Application" }]);
    expect(unknown.status).toBe(400);
    expect(unknown.body.ValidationMessages[0].MessageKey).toBe("PackageObjectNotFound");
    const badType = await create([{ Guid: GUID.risks, Type: "Dashboard" }]);
    expect(badType.status).toBe(400);
    expect(badType.body.ValidationMessages[0]).toMatchObject({
      MessageKey: "InvalidValue",
      ErroredValue: "Dashboard",
    });
    expect(badType.body.ValidationMessages[0].Description).toContain("PackageObjects.0.Type");
    const wrongKind = await create([{ Guid: GUID.comments, Type: "Application" }]);
    expect(wrongKind.status).toBe(400);
    const none = await create([]);
    expect(none.status).toBe(400);
    // Types bind case-insensitively; the questionnaire travels as an Application.
    const fine = await create([
      { Guid: GUID.comments, Type: "subform" },
      { Guid: GUID.assessment, Type: "Application" },
    ]);
    expect(fine.status).toBe(200);
    expect(fine.body.RequestedObject.Id).toBeGreaterThan(0);
  });

  it("package calls need the System Administrator role", async () => {
    const token = await raw().token("anguyen", "Welcome#2026");
    const response = await raw().call("/core/package", {
      method: "POST",
      token,
      prefix: "/api",
      body: { Name: "x", PackageObjects: [{ Guid: GUID.risks, Type: "Application" }] },
    });
    expect(response.status).toBe(403);
  });

  it("package calls answer under /platformapi/core as well", async () => {
    const token = await raw().token();
    const response = await raw().call("/core/package", {
      method: "POST",
      token,
      body: { Name: "x", PackageObjects: [{ Guid: GUID.risks, Type: "Application" }] },
    });
    expect(response.status).toBe(200);
  });

  it("install checks its body and its package", async () => {
    const token = await raw().token();
    const id = await createPackage(raw(), token, {
      Name: "x",
      PackageObjects: [{ Guid: GUID.risks, Type: "Application" }],
    });
    expect((await install(raw(), token, { PackageId: id })).status).toBe(409);
    await generateAndWait(raw(), token, id);
    const badMethod = await install(raw(), token, {
      PackageId: id,
      InstallOptions: [
        { Guid: GUID.risks, Type: "Application", InstallMethod: 3, InstallOption: 1, TranslationOption: 0 },
      ],
    });
    expect(badMethod.status).toBe(400);
    expect(badMethod.body.ValidationMessages[0].Description).toContain("InstallOptions.0.InstallMethod");
    const notInPackage = await install(raw(), token, {
      PackageId: id,
      InstallOptions: [
        {
          Guid: GUID.findings,
          Type: "Application",
          InstallMethod: 2,
          InstallOption: 1,
          TranslationOption: 0,
        },
      ],
    });
    expect(notInPackage.body.ValidationMessages[0].MessageKey).toBe("PackageObjectNotInPackage");
    expect((await install(raw(), token, { PackageId: 9999 })).status).toBe(404);
    // Lenient binding: strings for numbers and booleans, keys in any case.
    const lenient = await install(raw(), token, { packageid: String(id), InactivateUnusedFields: "false" });
    expect(lenient.status).toBe(200);
    expect((await generate(raw(), token, 9999)).status).toBe(404);
  });
});

describe("persistence", () => {
  it("a --data restart with the same workDir keeps packages downloadable", async () => {
    const dir = mkdtempSync(join(tmpdir(), "egp-packages-data-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const options = {
      port: 0,
      seed: "demo-dev",
      dataFile: join(dir, "state.json"),
      workDir: join(dir, "work"),
      ...FAST,
    };
    const first = await startEmulator(options);
    const firstRaw = new Raw(first.url);
    const token = await firstRaw.token();
    const id = await createPackage(firstRaw, token, {
      Name: "kept",
      PackageObjects: [{ Guid: GUID.risks, Type: "Application" }],
    });
    await generateAndWait(firstRaw, token, id);
    const original = tempFile();
    await download(firstRaw, token, id, original);
    await first.close();

    const second = await startEmulator(options);
    onTestFinished(() => second.close());
    const secondRaw = new Raw(second.url);
    const again = tempFile();
    expect((await download(secondRaw, await secondRaw.token(), id, again)).status).toBe(200);
    expect(readFileSync(again)).toEqual(readFileSync(original));
  });
});

describe("package transfers without a length", () => {
  /** A generated package of dev's, downloaded: its file. */
  async function generatedFile(raw: Raw, token: string): Promise<string> {
    const id = await createPackage(raw, token, {
      Name: "Findings",
      PackageObjects: [{ Guid: GUID.findings, Type: "Application" }],
    });
    await generateAndWait(raw, token, id);
    const file = tempFile();
    expect((await download(raw, token, id, file)).status).toBe(200);
    return file;
  }

  it("an upload sent chunked, without a Content-Length, is stored byte for byte", async () => {
    const { devRaw, prodRaw, devToken, prodToken } = await pair();
    const file = await generatedFile(devRaw, devToken);
    const uploaded = await upload(prodRaw, prodToken, file, { chunked: true });
    expect(uploaded.status).toBe(200);
    const back = tempFile();
    expect((await download(prodRaw, prodToken, uploaded.body.RequestedObject.Id, back)).status).toBe(200);
    expect(readFileSync(back).equals(readFileSync(file))).toBe(true);
  });

  it("--faults lengthRequired=1 refuses a body without a length with 411, and takes one with a length", async () => {
    const { devRaw, prodRaw, devToken, prodToken } = await pair({ ...FAST, faults: "lengthRequired=1" });
    const file = await generatedFile(devRaw, devToken);
    const refused = await upload(prodRaw, prodToken, file, { chunked: true });
    expect(refused.status).toBe(411);
    expect(refused.body).toMatchObject({
      IsSuccessful: false,
      ValidationMessages: [{ MessageKey: "LengthRequired" }],
    });
    expect((await upload(prodRaw, prodToken, file)).status).toBe(200);
  });

  it("--faults noLength=1 answers a package download without a Content-Length", async () => {
    const { devRaw, devToken } = await pair({ ...FAST, faults: "noLength=1" });
    const id = await createPackage(devRaw, devToken, {
      Name: "Findings",
      PackageObjects: [{ Guid: GUID.findings, Type: "Application" }],
    });
    await generateAndWait(devRaw, devToken, id);
    const file = tempFile();
    const got = await download(devRaw, devToken, id, file);
    expect(got.status).toBe(200);
    expect(got.headers["content-length"]).toBeUndefined();
    expect(got.headers["transfer-encoding"]).toBe("chunked");
    expect((await readZipEntries(file)).get("manifest.json")).toBeDefined();
  });
});
