import { describe, expect, it } from "vitest";
import { CREATED_AT, desired, desiredUser, live, liveUser } from "../../test/builders/plan.ts";
import { planChanges } from "./plan-changes.ts";
import { PlanFileError, readPlanFile, writePlanFile } from "./plan-file.ts";

/** A plan of one user to create and one to update, as a plan file, parsed back to JSON to edit. */
function savedPlan() {
  const plan = planChanges(
    desired({
      users: [
        desiredUser("new", { fields: { FirstName: "New", LastName: "User" } }),
        desiredUser("jdoe", { fields: { FirstName: "Jane", LastName: "Doe", Title: "Lead" } }),
      ],
    }),
    live({ users: [liveUser(7, "jdoe", { Title: "Analyst" })] }),
    { createdAt: CREATED_AT },
  );
  return JSON.parse(writePlanFile(plan));
}

const stepOf = (plan: { steps: Array<{ op: string; input: Record<string, unknown> }> }, op: string) => {
  const step = plan.steps.find((s) => s.op === op);
  if (!step) throw new Error(`no ${op} step in the plan`);
  return step;
};

describe("a plan file's step inputs are checked against their op's schema on load", () => {
  it("reads the planner's own inputs back unchanged", () => {
    const plan = savedPlan();
    expect(stepOf(plan, "user.create").input).toMatchObject({ userName: "new", passwordFrom: "generated" });
    expect(readPlanFile(JSON.stringify(plan))).toEqual(plan);
  });

  it("refuses an input its op can't read, naming the step", () => {
    const plan = savedPlan();
    stepOf(plan, "user.update").input.id = "seven";
    const text = JSON.stringify(plan);
    expect(() => readPlanFile(text, "plan.json")).toThrow(PlanFileError);
    expect(() => readPlanFile(text, "plan.json")).toThrow(
      /^plan\.json: not a usable plan file \(steps\.\d+\.input\.id: step User\/jdoe#update \(user\.update\): /,
    );
  });

  it("refuses a create without its password source, and an op no kind declares", () => {
    const plan = savedPlan();
    delete stepOf(plan, "user.create").input.passwordFrom;
    expect(() => readPlanFile(JSON.stringify(plan), "plan.json")).toThrow(
      /input\.passwordFrom: step User\/new#create \(user\.create\)/,
    );
    const other = savedPlan();
    stepOf(other, "user.create").op = "user.rename";
    expect(() => readPlanFile(JSON.stringify(other), "plan.json")).toThrow(/steps\.\d+\.op: /);
  });
});

describe("a plan file made in a freeze", () => {
  const freeze = {
    until: "2026-12-07 04:00",
    zone: "Europe/Berlin",
    untilInstant: "2026-12-07T03:00:00.000Z",
    reason: "Weekend freeze",
  };

  it("keeps the freeze, and a file written before plans carried one still reads", () => {
    const plan = savedPlan();
    expect(readPlanFile(JSON.stringify({ ...plan, freeze })).freeze).toEqual(freeze);
    expect(plan.freeze).toBeUndefined();
    expect(readPlanFile(JSON.stringify(plan))).toEqual(plan);
  });
});
