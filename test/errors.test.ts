import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ArtifactError } from "../src/apply/artifacts.ts";
import { ApplyError, StepError } from "../src/apply/errors.ts";
import { LockedError } from "../src/apply/lock.ts";
import { ExitError, exitOf } from "../src/cli/errors.ts";
import { userErrorOutput } from "../src/cli/user-errors.ts";
import { errorFromResponse, ResponseShapeError, TransferError } from "../src/client/errors.ts";
import { EgpError, ERROR_CODES, type ErrorCode } from "../src/errors/index.ts";
import { ManifestError } from "../src/manifest/errors.ts";
import type { Step } from "../src/plan/index.ts";
import { PlanError } from "../src/plan/kinds/kind.ts";
import { PlanFileError } from "../src/plan/plan-file.ts";
import { FrozenError } from "../src/release/freeze-gate.ts";
import { StoreError } from "../src/store/store-error.ts";

/*
 * One table of codes (src/errors/codes.ts), one page (docs/errors.md), one family (EgpError): each
 * code is thrown somewhere, documented with its exit code, and printed with its code.
 */

const ROOT = new URL("../", import.meta.url).pathname;
const SRC = join(ROOT, "src");
const CODES = Object.keys(ERROR_CODES) as ErrorCode[];

/** The shipped modules (not the colocated tests) and their text. */
const MODULES = readdirSync(SRC, { recursive: true, encoding: "utf8" })
  .map((file) => file.split("\\").join("/"))
  .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
  .map((file) => ({ file, source: readFileSync(join(SRC, file), "utf8") }));

/** `"EGP_…"` written as a whole string literal: where a code is given to an error. */
const QUOTED = /["'`](EGP_[A-Z_]+)["'`]/g;

/** `EGP_…` names that are environment variables, not error codes. */
const ENVIRONMENT_VARIABLES = new Set([
  "EGP_EMULATOR_ATTACHMENT_KEY",
  "EGP_INTERRUPT_GRACE_SECONDS",
  "EGP_STORE_USERNAME",
  "EGP_STORE_PASSWORD",
  "EGP_STATE_KEY",
  "EGP_SIGNING_KEY",
  "EGP_ACTOR",
  "EGP_APPROVERS",
]);

/** docs/errors.md's sections: `### \`CODE\`` and the exit code on the line after it. */
function documented(): Array<{ code: string; exitCode: number | undefined }> {
  const doc = readFileSync(join(ROOT, "docs/errors.md"), "utf8");
  return [...doc.matchAll(/^### `(EGP_[A-Z_]+)`\n\n(?:Exit (\d+) · )?/gm)].map((match) => ({
    code: match[1] as string,
    exitCode: match[2] === undefined ? undefined : Number(match[2]),
  }));
}

describe("the table of codes", () => {
  it("every code is thrown somewhere in src/, outside the table itself", () => {
    const quoted = new Set(
      MODULES.filter(({ file }) => !file.startsWith("errors/")).flatMap(({ source }) =>
        [...source.matchAll(QUOTED)].map((match) => match[1]),
      ),
    );
    expect(CODES.filter((code) => !quoted.has(code))).toEqual([]);
  });

  it("every code src/ writes is in the table: no stage names a code of its own", () => {
    const strays = MODULES.flatMap(({ file, source }) =>
      [...source.matchAll(QUOTED)]
        .map((match) => match[1] as string)
        .filter((code) => !(code in ERROR_CODES) && !ENVIRONMENT_VARIABLES.has(code))
        .map((code) => `${file}: ${code}`),
    );
    expect(strays).toEqual([]);
  });

  it("docs/errors.md has one section per code, with the table's exit code, and none for a code the table lacks", () => {
    const sections = documented();
    expect(sections.map((s) => s.code).sort()).toEqual([...CODES].sort());
    expect(sections.map(({ code, exitCode }) => [code, exitCode])).toEqual(
      sections.map(({ code }) => [code, ERROR_CODES[code as ErrorCode]?.exitCode]),
    );
  });

  it("the doc's reader finds a section and its exit code, and no code without its heading", () => {
    const text = "### `EGP_X`\n\nExit 2 · `ExitError`\n\nEGP_Y is mentioned.\n";
    expect(
      [...text.matchAll(/^### `(EGP_[A-Z_]+)`\n\n(?:Exit (\d+) · )?/gm)].map((m) => [m[1], m[2]]),
    ).toEqual([["EGP_X", "2"]]);
  });
});

/** Classes that extend Error and are not failures of egp: each is caught in the stage that throws it. */
const OUTSIDE_THE_FAMILY: Record<string, string> = {
  RuleSpoke: "manifest/load.ts: a cached load's rule spoke; the load is made again the long way",
  HttpFailure: "the emulator's non-success answer to a request; the server sends it as HTTP",
  SoapFault: "the emulator's SOAP fault; the server sends it as XML",
  XmlError: "the emulator's XML reader; its web services answer it as a SOAP fault",
};

describe("one family", () => {
  it("every error class in src/ extends EgpError, but the emulator's answers and one control flow", () => {
    const parents = new Map(
      MODULES.flatMap(({ source }) =>
        [...source.matchAll(/\bclass (\w+) extends (\w+)/g)].map((m) => [m[1] as string, m[2] as string]),
      ),
    );
    const inFamily = (name: string): boolean => {
      const parent = parents.get(name);
      if (parent === "EgpError") return true;
      return parent !== undefined && parents.has(parent) && inFamily(parent);
    };
    const errors = [...parents].filter(([, parent]) => parent === "Error" || parents.has(parent));
    const outside = errors.map(([name]) => name).filter((name) => name !== "EgpError" && !inFamily(name));
    expect(outside.sort()).toEqual(Object.keys(OUTSIDE_THE_FAMILY).sort());
    expect(errors.length).toBeGreaterThan(30);
  });

  it("an EgpError takes its exit code from the table and keeps its cause", () => {
    const cause = new Error("disk");
    const error = new EgpError("EGP_INTERRUPTED", "stopped", { cause });
    expect([error.code, error.exitCode, error.cause, error.name]).toEqual([
      "EGP_INTERRUPTED",
      130,
      cause,
      "EgpError",
    ]);
    expect(new LockedError("prod", ".egp/locks/prod.lock", undefined)).toBeInstanceOf(EgpError);
    expect(exitOf({ message: "apply finished with failed steps", code: "EGP_APPLY_FAILED" }).exitCode).toBe(
      1,
    );
  });
});

const issue = (line: number) => ({
  file: "manifests/users.yaml",
  line,
  column: 3,
  path: `users[${line}].status`,
  message: "expected one of active, inactive",
  severity: "error" as const,
});

/** The failures whose class shapes the printed line: each code's own representative. */
function representatives(): Partial<Record<ErrorCode, EgpError>> {
  const disk = Object.assign(new Error("ENOSPC"), { code: "ENOSPC", syscall: "write", path: "/tmp/p.zip" });
  const response = { method: "POST", path: "/platformapi/core/system/user" };
  const step = {
    id: "User/a#create",
    op: "user.create",
    env: "prod",
    input: {},
    dependsOn: [],
  } as unknown as Step;
  const window = {
    kind: "once" as const,
    from: "2026-12-24T00:00",
    to: "2026-12-27T00:00",
    reason: "holidays",
  };
  return {
    EGP_MANIFEST_INVALID: new ManifestError([issue(1), issue(2)]),
    EGP_PLAN_INVALID: PlanError.refused([issue(4), issue(5)]),
    EGP_PLAN_FILE_INVALID: new PlanFileError("plan.json", "not JSON"),
    EGP_VALIDATION: errorFromResponse({ ...response, status: 400, messages: [{ Description: "Required" }] }),
    EGP_LOGIN_FAILED: errorFromResponse({ ...response, status: 200, login: true }),
    EGP_UNAVAILABLE: errorFromResponse({ ...response, status: 503 }),
    EGP_RESPONSE_SHAPE: new ResponseShapeError({ ...response, status: 200, issues: [] }),
    EGP_TRANSFER: new TransferError("upload failed", disk),
    EGP_ARTIFACT_REJECTED: new ArtifactError("p.zip", "not a zip"),
    EGP_STORE_DENIED: new StoreError("EGP_STORE_DENIED", "the registry refused", { status: 401 }),
    EGP_TARGET_GONE: new ApplyError("EGP_TARGET_GONE", "user jdoe is gone"),
    EGP_FROZEN: new FrozenError("prod", { state: "frozen", window, declined: ["no exception"] }),
    EGP_STEP_FAILED: new StepError(step, undefined, new Error("a bug")),
    EGP_APPLY_FAILED: exitOf({ message: "apply finished with failed steps", code: "EGP_APPLY_FAILED" }),
  };
}

describe("the CLI prints every user-facing code as `egp: CODE message`", () => {
  const own = representatives();
  const userFacing = CODES.filter((code) => ERROR_CODES[code].userFacing);

  it.each(userFacing)("%s", (code) => {
    const error = own[code] ?? new ExitError(code, "what went wrong, and what to do");
    expect(error.code).toBe(code);
    const output = userErrorOutput(error);
    const lines = output?.text.split("\n").filter(Boolean) ?? [];
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line.startsWith(`egp: ${code} `), line).toBe(true);
    expect(output?.exitCode).toBe(ERROR_CODES[code].exitCode);
  });

  it("one line per issue for a manifest and a refused plan, each with its code and position", () => {
    expect(userErrorOutput(own.EGP_MANIFEST_INVALID)?.text).toBe(
      "egp: EGP_MANIFEST_INVALID manifests/users.yaml:1:3 users[1].status: expected one of active, inactive\n" +
        "egp: EGP_MANIFEST_INVALID manifests/users.yaml:2:3 users[2].status: expected one of active, inactive\n",
    );
    expect(userErrorOutput(own.EGP_PLAN_INVALID)?.text.split("\n")).toHaveLength(3);
  });

  it("an internal code, or anything not of the family, is an internal error", () => {
    const internal = CODES.filter((code) => !ERROR_CODES[code].userFacing);
    expect(internal).toContain("EGP_REQUEST_DEADLINE");
    for (const code of internal) expect(userErrorOutput(new EgpError(code, "x")), code).toBeUndefined();
    expect(userErrorOutput(new Error("a bug"))).toBeUndefined();
    expect(userErrorOutput(Object.assign(new Error("x"), { code: "EGP_LOCKED" }))).toBeUndefined();
  });

  it("the file system's own errors get EGP_FILE_SYSTEM and the system's words", () => {
    const full = Object.assign(new Error("ENOSPC"), { code: "ENOSPC", syscall: "write", path: "/tmp/x" });
    expect(userErrorOutput(full)).toEqual({
      text: "egp: EGP_FILE_SYSTEM cannot write /tmp/x: no space left on the device (ENOSPC)\n",
      exitCode: 1,
    });
    expect(userErrorOutput(own.EGP_TRANSFER)?.text).toBe(
      "egp: EGP_TRANSFER cannot write /tmp/p.zip: no space left on the device (ENOSPC)\n",
    );
  });

  it("an exit status whose report is printed says nothing more; a message stays printable", () => {
    expect(userErrorOutput(new ExitError("EGP_DIFFERENCES", ""))).toEqual({ text: "", exitCode: 2 });
    expect(userErrorOutput(new ExitError("EGP_USAGE", "bad\x1b[2J\nname"))?.text).toBe(
      "egp: EGP_USAGE bad\\x1b[2J\\nname\n",
    );
  });
});
