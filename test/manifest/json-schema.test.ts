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
    // A kind that may say `ensure: absent` is itself two branches: the document, and its key alone.
    type Branch = {
      properties: { kind: { const: string } };
      additionalProperties: boolean;
      required: string[];
    };
    const forms = (branch: Branch | { oneOf: Branch[] }): Branch[] =>
      "oneOf" in branch ? branch.oneOf : [branch];
    const kinds = manifest.oneOf.map(
      (branch: Branch | { oneOf: Branch[] }) => forms(branch)[0]!.properties.kind.const,
    );
    expect(kinds).toEqual(["SecurityParameter", "User", "Package", "Record", "PrunePolicy"]);
    for (const branch of manifest.oneOf.flatMap(forms)) expect(branch.additionalProperties).toBe(false);
    const [user, absentUser] = forms(manifest.oneOf[1]);
    expect(user!.required).toEqual(["kind", "userName", "firstName", "lastName"]);
    expect((user!.properties as unknown as { status: { enum: string[] } }).status.enum).toEqual([
      "active",
      "inactive",
      "locked",
    ]);
    expect(absentUser!.required).toEqual(["kind", "userName", "ensure"]);
    expect(Object.keys(absentUser!.properties)).toEqual(["kind", "environments", "userName", "ensure"]);
  });

  it("the PrunePolicy's fields and exclude lists are the prunable kinds'", () => {
    const manifest = JSON.parse(schemaFiles().find((f) => f.name === "manifest.schema.json")!.text);
    const policy = manifest.oneOf[4];
    expect(Object.keys(policy.properties)).toEqual([
      "kind",
      "environments",
      "securityParameters",
      "users",
      "exclude",
    ]);
    expect(policy.properties.users.enum).toEqual(["ignore", "deactivate", "delete"]);
    expect(Object.keys(policy.properties.exclude.properties)).toEqual(["securityParameters", "users"]);
  });

  it("an environment file has no unknown keys and needs url", () => {
    const environment = JSON.parse(schemaFiles().find((f) => f.name === "environment.schema.json")!.text);
    expect(environment.additionalProperties).toBe(false);
    expect(environment.required).toEqual(["url"]);
    expect(environment.properties.auth.additionalProperties).toBe(false);
  });
});
