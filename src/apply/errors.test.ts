import { describe, expect, it } from "vitest";
import { ConnectionError, errorFromResponse } from "../client/errors.ts";
import { Scrubber } from "../client/redact.ts";
import type { Step } from "../plan/index.ts";
import { ApplyError, StepError } from "./errors.ts";

const step: Step = {
  id: "User/alice#create",
  change: "User/alice",
  op: "user.create",
  environment: "prod",
  dependsOn: [],
  input: { userName: "alice" },
};
const change = { kind: "User" as const, key: "alice" };

describe("StepError", () => {
  it("carries the step's kind, key, op and id, and the client error's code, status and message keys", () => {
    const cause = errorFromResponse({
      method: "POST",
      path: "/platformapi/core/system/user",
      status: 400,
      messages: [{ MessageKey: "InvalidValue", Description: "FirstName: Required" }],
    });
    const error = new StepError(step, change, cause);
    expect(error.cause).toBe(cause);
    expect(error.message).toBe(cause.message);
    expect(error.toJSON()).toEqual({
      code: "EGP_VALIDATION",
      message: cause.message,
      kind: "User",
      key: "alice",
      op: "user.create",
      step: "User/alice#create",
      cause: {
        code: "EGP_VALIDATION",
        name: "ValidationError",
        message: cause.message,
        status: 400,
        method: "POST",
        path: "/platformapi/core/system/user",
        messageKeys: ["InvalidValue"],
      },
    });
  });

  it("keeps an apply error's code, and says whether a lost request was sent", () => {
    const gone = new ApplyError("EGP_TARGET_GONE", "user alice no longer exists on prod");
    expect(new StepError(step, change, gone).toJSON()).toMatchObject({
      code: "EGP_TARGET_GONE",
      cause: { code: "EGP_TARGET_GONE", name: "ApplyError" },
    });
    const lost = new ConnectionError({ code: "EGP_CONNECTION", message: "reset", sent: true });
    expect(new StepError(step, change, lost).toJSON().cause).toMatchObject({
      code: "EGP_CONNECTION",
      sent: true,
    });
  });

  it("gives anything without a code of ours EGP_STEP_FAILED, keeping a Node code in the cause", () => {
    const disk = Object.assign(new Error("no space left on device"), { code: "ENOSPC" });
    expect(new StepError(step, change, disk).toJSON()).toMatchObject({
      code: "EGP_STEP_FAILED",
      message: "no space left on device",
      cause: { code: "ENOSPC", name: "Error" },
    });
    expect(new StepError(step, undefined, "thrown text").toJSON()).toEqual({
      code: "EGP_STEP_FAILED",
      message: "thrown text",
      op: "user.create",
      step: "User/alice#create",
      cause: { name: "string", message: "thrown text" },
    });
  });

  it("copies no secret: not the request's body, headers or errored values", () => {
    const scrubber = new Scrubber(["Tr0ub4dor&3"]);
    const cause = errorFromResponse({
      method: "PUT",
      // egp never puts a secret in a path; the platform's words may quote one.
      path: "/platformapi/core/system/userpassword",
      status: 400,
      messages: [
        { MessageKey: "PasswordReused", Description: "Tr0ub4dor&3 was used", ErroredValue: "Tr0ub4dor&3" },
      ],
      headers: { authorization: 'Platform session-id="SESSION-SECRET"' },
      scrub: scrubber.scrub,
    });
    const json = JSON.stringify(new StepError(step, change, cause));
    expect(json).toContain("PasswordReused");
    expect(json).not.toContain("Tr0ub4dor");
    expect(json).not.toContain("SESSION-SECRET");
  });
});
