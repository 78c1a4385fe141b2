import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { schemaFiles } from "../../src/manifest/index.ts";

const ROOT = join(import.meta.dirname, "..", "..");

describe("JSON Schema", () => {
  it("the committed schema/ matches the zod schemas (else run: npm run egp -- schema)", async () => {
    for (const file of schemaFiles()) {
      const committed = await readFile(join(ROOT, "schema", file.name), "utf8").catch(() => "(missing)");
      expect(committed, `schema/${file.name} is stale: run npm run egp -- schema`).toBe(file.text);
    }
  });

  it("a manifest document is one of the kinds, discriminated by kind, with no unknown keys", () => {
    const manifest = JSON.parse(schemaFiles().find((f) => f.name === "manifest.schema.json")!.text);
    const kinds = manifest.oneOf.map(
      (branch: { properties: { kind: { const: string } } }) => branch.properties.kind.const,
    );
    expect(kinds).toEqual(["SecurityParameter", "User", "Package", "PrunePolicy"]);
    for (const branch of manifest.oneOf) expect(branch.additionalProperties).toBe(false);
    const user = manifest.oneOf[1];
    expect(user.required).toEqual(["kind", "userName", "firstName", "lastName"]);
    expect(user.properties.status.enum).toEqual(["active", "inactive", "locked"]);
  });

  it("an environment file has no unknown keys and needs url", () => {
    const environment = JSON.parse(schemaFiles().find((f) => f.name === "environment.schema.json")!.text);
    expect(environment.additionalProperties).toBe(false);
    expect(environment.required).toEqual(["url"]);
    expect(environment.properties.auth.additionalProperties).toBe(false);
  });
});
