import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as api from "../../src/index.ts";

describe("the public API", () => {
  it("exports the client, its errors and its pure retry policy", () => {
    expect(typeof api.createClient).toBe("function");
    const errors = [
      api.PlatformError,
      api.AuthError,
      api.ForbiddenError,
      api.NotFoundError,
      api.ValidationError,
      api.RateLimitError,
      api.TransientError,
      api.ConnectionError,
      api.OutcomeUnknownError,
      api.ResponseShapeError,
    ];
    for (const type of errors) expect(typeof type).toBe("function");
    expect(new api.OutcomeUnknownError({ code: "EGP_OUTCOME_UNKNOWN", message: "x" })).toBeInstanceOf(
      api.PlatformError,
    );
    expect(api.shouldRetry({ idempotent: true, status: 503 }, 1)).toBe(true);
    expect(api.ERROR_CODES).toContain("EGP_OUTCOME_UNKNOWN");
  });

  /** Relative imports of every .ts file under src/<folder>/, resolved. */
  function importsOf(folder: string): Array<{ file: string; from: string; resolved: string }> {
    const root = new URL(`../../src/${folder}/`, import.meta.url).pathname;
    const files = readdirSync(root, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(1);
    const found: Array<{ file: string; from: string; resolved: string }> = [];
    for (const file of files) {
      const source = readFileSync(join(root, file), "utf8");
      for (const [, from] of source.matchAll(/from "([^"]+)"/g)) {
        if (!from?.startsWith(".")) continue;
        found.push({ file, from, resolved: new URL(from, `file://${join(root, file)}`).pathname });
      }
    }
    return found;
  }

  it("the client never imports the emulator (only wire, io and its own modules)", () => {
    for (const { file, from, resolved } of importsOf("client"))
      expect(resolved, `${file} imports ${from}`).toMatch(/\/src\/(client|wire|io)\//);
  });

  it("the emulator never imports the client", () => {
    for (const { file, from, resolved } of importsOf("emulator"))
      expect(resolved, `${file} imports ${from}`).not.toMatch(/\/src\/client\//);
  });

  it("io, shared by both, imports neither", () => {
    for (const { file, from, resolved } of importsOf("io"))
      expect(resolved, `${file} imports ${from}`).toMatch(/\/src\/io\//);
  });
});
