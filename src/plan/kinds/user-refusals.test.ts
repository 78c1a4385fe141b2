import { describe, expect, it } from "vitest";
import {
  CREATED_AT,
  desired,
  desiredParameter,
  desiredUser,
  live,
  liveParameter,
  liveUser,
} from "../../../test/builders/plan.ts";
import { type DesiredUser, Secret } from "../../manifest/index.ts";
import type { LiveState } from "../../state/live-state.ts";
import { planChanges, planRefusals } from "../plan-changes.ts";
import { formatPlanProblem, PlanError } from "./kind.ts";

/* The user planner refuses, before any step is planned, what the platform would refuse of a user. */

const PASSWORD = "Mk9marker";

const source = (line: number, path: string) => ({ file: "manifests/users.yaml", line, column: 18, path });

function newUser(parts: Partial<DesiredUser> = {}): DesiredUser {
  return desiredUser("kmurphy", {
    initialPassword: new Secret(PASSWORD),
    fieldSources: { initialPassword: source(9, "users[3].initialPassword") },
    ...parts,
  });
}

/** The problems `planChanges` would refuse with, as the CLI prints them. */
function refusals(d: ReturnType<typeof desired>, l: LiveState = live()): string[] {
  return planRefusals(d, l).map(formatPlanProblem);
}

// The builders' live default, General User Parameter, wants 8 characters, a letter, a digit, an
// upper-case and a lower-case letter.
describe("user planner: initialPassword against the user's security parameter", () => {
  it("refuses a password shorter than the named parameter asks, at the password's position", () => {
    const l = live({
      securityParameters: [
        liveParameter(2, "General User Parameter", { Default: true }),
        liveParameter(5, "Contractor Parameter", { MinPasswordLength: 14, SpecialCharsRequired: 2 }),
      ],
    });
    const d = desired({ users: [newUser({ securityParameter: "Contractor Parameter" })] });
    expect(refusals(d, l)).toEqual([
      'manifests/users.yaml:9:18 users[3].initialPassword: the platform would refuse this password: its security parameter "Contractor Parameter", as this plan leaves it, requires at least 14 characters and at least 2 special characters',
    ]);
    expect(() => planChanges(d, l, { createdAt: CREATED_AT })).toThrow(PlanError);
  });

  it("checks a user with no parameter against the default one", () => {
    const d = desired({ users: [newUser({ initialPassword: new Secret("NoDigitsHere") })] });
    expect(refusals(d)).toEqual([
      'manifests/users.yaml:9:18 users[3].initialPassword: the platform would refuse this password: the default security parameter "General User Parameter", as this plan leaves it, requires at least 1 digit',
    ]);
    expect(refusals(desired({ users: [newUser()] }))).toEqual([]);
  });

  it("checks against the parameter as the plan leaves it, not as it is live", () => {
    const stricter = desiredParameter("General User Parameter", { MinPasswordLength: 12 });
    expect(refusals(desired({ securityParameters: [stricter], users: [newUser()] }))).toEqual([
      expect.stringContaining("requires at least 12 characters"),
    ]);
    const looser = desiredParameter("General User Parameter", { NumericCharsRequired: 0 });
    const noDigit = newUser({ initialPassword: new Secret("NoDigitsHere") });
    expect(refusals(desired({ securityParameters: [looser], users: [noDigit] }))).toEqual([]);
  });

  it("checks against the parameter a manifest makes the default", () => {
    const d = desired({
      securityParameters: [desiredParameter("Strict", { Default: true, SpecialCharsRequired: 1 })],
      users: [newUser()],
    });
    expect(refusals(d)).toEqual([
      expect.stringContaining(
        'the default security parameter "Strict", as this plan leaves it, requires at least 1 special character',
      ),
    ]);
  });

  it("checks a parameter the plan creates with the rules its manifest gives, and no others", () => {
    const created = desiredParameter("Contractor Parameter", { MinPasswordLength: 10 });
    const user = (password: string) =>
      newUser({ securityParameter: "Contractor Parameter", initialPassword: new Secret(password) });
    expect(refusals(desired({ securityParameters: [created], users: [user("alllowercase")] }))).toEqual([]);
    expect(refusals(desired({ securityParameters: [created], users: [user("short")] }))).toEqual([
      expect.stringContaining("requires at least 10 characters"),
    ]);
  });

  it("leaves the password of a user that exists alone: it is used only on create", () => {
    const d = desired({ users: [newUser({ initialPassword: new Secret("x") })] });
    expect(refusals(d, live({ users: [liveUser(9, "KMurphy")] }))).toEqual([]);
  });

  it("never puts the password in the error", () => {
    const d = desired({ users: [newUser({ initialPassword: new Secret(`${PASSWORD}`.slice(0, 6)) })] });
    expect(() => planChanges(d, live(), { createdAt: CREATED_AT })).toThrow(/initialPassword/);
    const text = refusals(d).join("\n");
    expect(text).not.toContain(PASSWORD.slice(0, 6));
  });
});

describe("user planner: the security parameter must exist", () => {
  const missing = (userName: string, line: number) =>
    desiredUser(userName, {
      securityParameter: "Contractor Paramete",
      fieldSources: { securityParameter: source(line, `users[${line}].securityParameter`) },
    });

  it("refuses a parameter that neither the instance nor a manifest has, for a new or a live user", () => {
    const d = desired({ users: [missing("kmurphy", 4), missing("jdoe", 2)] });
    expect(refusals(d, live({ users: [liveUser(7, "jdoe")] }))).toEqual([
      'manifests/users.yaml:2:18 users[2].securityParameter: security parameter "Contractor Paramete" does not exist on prod, and no manifest for prod defines it',
      'manifests/users.yaml:4:18 users[4].securityParameter: security parameter "Contractor Paramete" does not exist on prod, and no manifest for prod defines it',
    ]);
  });

  it("accepts a parameter that a manifest creates, matched case-insensitively", () => {
    const d = desired({
      securityParameters: [desiredParameter("contractor paramete")],
      users: [missing("kmurphy", 4)],
    });
    expect(refusals(d)).toEqual([]);
    expect(planChanges(d, live(), { createdAt: CREATED_AT }).steps.map((s) => s.op)).toEqual([
      "securityParameter.create",
      "user.create",
    ]);
  });

  it("makes planChanges throw one PlanError that carries every problem, the first as its message", () => {
    const d = desired({ users: [missing("kmurphy", 4), newUser({ initialPassword: new Secret("x") })] });
    const refused = () => planChanges(d, live(), { createdAt: CREATED_AT });
    expect(refused).toThrow(PlanError);
    expect(refused).toThrow(
      /^manifests\/users\.yaml:4:18 users\[4\]\.securityParameter: security parameter "Contractor Paramete" does not exist on prod, and no manifest for prod defines it \(and 1 more\)$/,
    );
    expect(refusals(d)).toHaveLength(2);
  });

  it("falls back on the user's own position when a field's is not known", () => {
    const d = desired({ users: [desiredUser("kmurphy", { securityParameter: "Nope" })] });
    expect(refusals(d)).toEqual([
      'manifests/test.yaml:1:1 securityParameter: security parameter "Nope" does not exist on prod, and no manifest for prod defines it',
    ]);
  });
});
