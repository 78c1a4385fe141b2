import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import {
  createPackage,
  download,
  generate,
  install,
  moduleTree,
  until,
  upload,
} from "../helpers/packages.ts";
import { useEmulator } from "../helpers/raw.ts";
import { readZipEntries } from "../helpers/zip.ts";

/*
 * `profile: "foreign"` behaves like an instance egp has never seen (DESIGN §4.3): package files in
 * a layout of its own, no package list or read (so no job status), HTML 404 pages for unknown
 * paths. Everything the interface description has works as in the default profile.
 */

const jobs = { generateMs: 20, installMs: 20 };
const dev = useEmulator({ seed: "demo-dev", profile: "foreign", jobs });
const prod = useEmulator({ seed: "demo-prod", profile: "foreign", jobs });
const plain = useEmulator({ seed: "demo-dev", jobs });

const work = mkdtempSync(join(tmpdir(), "egp-foreign-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const CONTROLS = demoGuid("controls");

describe("the foreign profile", () => {
  it("answers an unknown path with the web server's HTML page, where the default profile answers an envelope", async () => {
    const token = await dev.raw().token();
    const foreign = await dev.raw().read("/core/system/nothing-here", token);
    expect(foreign.status).toBe(404);
    expect(String(foreign.headers["content-type"])).toMatch(/^text\/html/);
    expect(foreign.text).toContain("404 - File or directory not found.");

    const own = await plain.raw().read("/core/system/nothing-here", await plain.raw().token());
    expect(own.status).toBe(404);
    expect(own.body).toMatchObject({ IsSuccessful: false });
  });

  it("has no package list or read, where the default profile has both", async () => {
    const token = await dev.raw().token();
    const id = await createPackage(dev.raw(), token, {
      Name: "Controls",
      PackageObjects: [{ Guid: CONTROLS, Type: "Application" }],
    });
    const list = await dev.raw().read("/core/package", token, { prefix: "/api" });
    // The path is the create's: it answers that it can't be read.
    expect(list.status).toBe(405);
    expect(list.body).toMatchObject({ IsSuccessful: false });
    const one = await dev.raw().read(`/core/package/${id}`, token, { prefix: "/api" });
    expect(one.status).toBe(404);
    expect(String(one.headers["content-type"])).toMatch(/^text\/html/);

    const plainToken = await plain.raw().token();
    expect((await plain.raw().read("/core/package", plainToken, { prefix: "/api" })).status).toBe(200);
  });

  it("writes package files in a layout of its own, which another foreign instance installs", async () => {
    const token = await dev.raw().token();
    const id = await createPackage(dev.raw(), token, {
      Name: "Controls",
      PackageObjects: [{ Guid: CONTROLS, Type: "Application" }],
    });
    expect((await generate(dev.raw(), token, id)).status).toBe(200);
    // No job status: a download answers 409 until the file is ready, as the default profile does.
    const file = join(work, "controls.zip");
    await until(
      async () => ((await download(dev.raw(), token, id, file)).status === 200 ? true : undefined),
      "the file",
    );
    const names = [...(await readZipEntries(file)).keys()];
    expect(names).not.toContain("manifest.json");
    expect(names).toContain("Package/Definition.dat");
    expect(names).toContain(`Package/Items/${CONTROLS.toUpperCase()}.dat`);

    const prodToken = await prod.raw().token();
    const uploaded = await upload(prod.raw(), prodToken, file);
    expect(uploaded.status, uploaded.text).toBe(200);
    const installed = await install(prod.raw(), prodToken, {
      PackageId: uploaded.body.RequestedObject.Id,
      InactivateUnusedFields: false,
      PrefixInactivatedFields: null,
      InstallOptions: [
        {
          Guid: CONTROLS,
          Name: "Controls",
          Type: "Application",
          TranslationOption: 0,
          InstallMethod: 2,
          InstallOption: 2,
        },
      ],
    });
    expect(installed.status, installed.text).toBe(200);
    const fieldNames = async () => {
      const tree = await moduleTree(prod.raw(), prodToken, CONTROLS);
      return JSON.stringify(tree.Levels);
    };
    expect(await fieldNames()).not.toContain('"Last Tested"');
    await until(
      async () => ((await fieldNames()).includes('"Last Tested"') ? true : undefined),
      "the install to show in prod's metadata",
    );
  });
});
