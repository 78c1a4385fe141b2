import { describe, expect, it } from "vitest";
import { environmentDoc, errorsOf, lines, packageDoc, statesOf, validate } from "./builders.ts";

const PROMOTION = { dev: environmentDoc(), prod: environmentDoc({ packagesFrom: "dev" }) };
const SUBFORM = "F6AD3B50-DC4F-53CE-9630-6AE114CF566F";

function packagesIn(environment: string, manifests: Record<string, unknown>) {
  const states = statesOf({ environments: PROMOTION, manifests: manifests as never });
  return states.find((state) => state.environment.name === environment)?.packages ?? [];
}

describe("Package documents", () => {
  it("name applications by name and other objects by GUID, with install options layered on defaults", () => {
    const [pkg] = packagesIn("prod", {
      "packages.yaml": packageDoc({
        description: "Core",
        preparedBy: "Platform",
        install: { translations: "install" },
        objects: [
          { application: "Risk Register" },
          { guid: SUBFORM, type: "SubForm", install: { method: "createNew", layout: "override" } },
        ],
      }),
    });
    expect(pkg).toMatchObject({
      kind: "Package",
      name: "GRC Core",
      description: "Core",
      preparedBy: "Platform",
      inactivateUnusedFields: false,
      prefixInactivatedFields: null,
    });
    expect(pkg?.objects).toEqual([
      {
        by: "name",
        type: "Application",
        name: "Risk Register",
        install: {
          method: "createAndUpdate",
          layout: "keep",
          translations: "install",
          InstallMethod: 2,
          InstallOption: 1,
          TranslationOption: 1,
          assumed: [
            {
              field: "TranslationOption",
              word: "install",
              code: 1,
              key: "installCodes.translationOption.install",
            },
          ],
        },
        source: { file: "manifests/packages.yaml", line: 4, column: 5 },
      },
      {
        by: "guid",
        type: "SubForm",
        guid: SUBFORM.toLowerCase(),
        install: {
          method: "createNew",
          layout: "override",
          translations: "install",
          InstallMethod: 1,
          InstallOption: 2,
          TranslationOption: 1,
          assumed: [
            {
              field: "InstallMethod",
              word: "createNew",
              code: 1,
              key: "installCodes.installMethod.createNew",
            },
            { field: "InstallOption", word: "override", code: 2, key: "installCodes.installOption.override" },
            {
              field: "TranslationOption",
              word: "install",
              code: 1,
              key: "installCodes.translationOption.install",
            },
          ],
        },
        source: { file: "manifests/packages.yaml", line: 5, column: 5 },
      },
    ]);
  });

  it("send the codes the target's environment file gives for their words, the assumed ones for the rest", () => {
    const states = statesOf({
      environments: {
        ...PROMOTION,
        prod: environmentDoc({
          packagesFrom: "dev",
          installCodes: {
            installMethod: { createNew: 7, createAndUpdate: 8 },
            translationOption: { install: 5 },
          },
        }),
      },
      manifests: {
        "packages.yaml": packageDoc({
          install: { translations: "install", layout: "override" },
          objects: [
            { application: "Risk Register", install: { method: "createNew" } },
            { application: "Controls" },
          ],
        }),
      },
    });
    const objects = states.find((state) => state.environment.name === "prod")?.packages[0]?.objects;
    expect(objects?.map((o) => o.install)).toEqual([
      {
        method: "createNew",
        layout: "override",
        translations: "install",
        InstallMethod: 7,
        InstallOption: 2,
        TranslationOption: 5,
        assumed: [
          { field: "InstallOption", word: "override", code: 2, key: "installCodes.installOption.override" },
        ],
      },
      {
        method: "createAndUpdate",
        layout: "override",
        translations: "install",
        InstallMethod: 8,
        InstallOption: 2,
        TranslationOption: 5,
        assumed: [
          { field: "InstallOption", word: "override", code: 2, key: "installCodes.installOption.override" },
        ],
      },
    ]);
  });

  it("apply only to environments that have packagesFrom", () => {
    expect(packagesIn("dev", { "p.yaml": packageDoc() })).toEqual([]);
    expect(packagesIn("prod", { "p.yaml": packageDoc() })).toHaveLength(1);
    const errors = errorsOf({
      environments: PROMOTION,
      manifests: { "p.yaml": packageDoc({ environments: ["dev"] }) },
    });
    expect(errors.map((e) => `${e.path}: ${e.message}`)).toEqual([
      "packages[0].environments: names dev, which has no packagesFrom: a Package is promoted into an environment from the one its packagesFrom names",
    ]);
  });

  it("need each object to name one thing, with a type for a GUID", () => {
    const errors = errorsOf({
      environments: PROMOTION,
      manifests: {
        "p.yaml": packageDoc({
          objects: [
            { application: "Controls", guid: SUBFORM },
            {},
            { guid: SUBFORM },
            { application: "Controls", type: "SubForm" },
          ],
        }),
      },
    });
    expect(errors.map((e) => `${e.path}: ${e.message}`)).toEqual([
      "packages[0].objects[0]: names both an application and a guid; give one",
      "packages[0].objects[1]: needs application: <name> or guid: <GUID> with type",
      "packages[0].objects[2]: type is required with guid (Application, SubForm, GlobalReport)",
      "packages[0].objects[3].type: goes with guid; an object named by application is an Application",
    ]);
  });

  it("refuse bad GUIDs, types, install words, an empty object list and objects listed twice", () => {
    const text = [
      "kind: Package",
      "name: p",
      "objects:",
      "  - { guid: not-a-guid, type: Report }",
      "  - { application: Controls, install: { method: replace } }",
    ].join("\n");
    expect(lines(errorsOf({ environments: PROMOTION, manifests: { "p.yaml": text } }))).toEqual([
      "manifests/p.yaml:4:13 packages[0].objects[0].guid: expected a GUID, 8-4-4-4-12 hexadecimal digits",
      "manifests/p.yaml:4:31 packages[0].objects[0].type: expected one of Application, SubForm, GlobalReport",
      "manifests/p.yaml:5:49 packages[0].objects[1].install.method: expected one of createNew, createAndUpdate",
    ]);
    const empty = errorsOf({ environments: PROMOTION, manifests: { "p.yaml": packageDoc({ objects: [] }) } });
    expect(empty.map((e) => e.message)).toEqual(["must list at least 1 item"]);
    const twice = errorsOf({
      environments: PROMOTION,
      manifests: {
        "p.yaml": packageDoc({
          objects: [
            { guid: SUBFORM, type: "SubForm" },
            { guid: SUBFORM.toLowerCase(), type: "SubForm" },
          ],
        }),
      },
    });
    expect(twice.map((e) => e.message)).toEqual([
      `guid ${SUBFORM.toLowerCase()} is listed twice (also objects[0])`,
    ]);
  });

  it("warn that a prefix without inactivateUnusedFields does nothing", () => {
    const result = validate({
      environments: PROMOTION,
      manifests: { "p.yaml": packageDoc({ prefixInactivatedFields: "OLD_" }) },
    });
    expect(result.ok).toBe(true);
    expect(result.warnings.map((w) => w.message)).toEqual([
      "has no effect unless inactivateUnusedFields is true",
    ]);
  });

  it("refuse two packages with the same name in one environment", () => {
    const errors = errorsOf({
      environments: PROMOTION,
      manifests: { "a.yaml": packageDoc(), "b.yaml": packageDoc({ name: "grc core" }) },
    });
    expect(lines(errors)).toEqual([
      'manifests/b.yaml:2:7 packages[0].name: Package "grc core" is also defined at manifests/a.yaml:2:7',
    ]);
  });

  it("snapshot before install by default; install: { snapshot: false } turns it off, for the package only", () => {
    const [on] = packagesIn("prod", { "p.yaml": packageDoc() });
    expect(on?.snapshot).toBe(true);
    const [off] = packagesIn("prod", {
      "p.yaml": packageDoc({ install: { snapshot: false, layout: "override" } }),
    });
    expect(off?.snapshot).toBe(false);
    // The package's other install options still reach its objects; snapshot is not one of theirs.
    expect(off?.objects[0]?.install).toMatchObject({ layout: "override", InstallOption: 2 });
    expect(off?.objects[0]?.install).not.toHaveProperty("snapshot");
    const errors = errorsOf({
      environments: PROMOTION,
      manifests: {
        "p.yaml": packageDoc({ objects: [{ application: "Risk Register", install: { snapshot: false } }] }),
      },
    });
    expect(lines(errors).join("\n")).toMatch(/objects\[0\]\.install.*snapshot/);
  });
});
