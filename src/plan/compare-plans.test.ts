import { describe, expect, it } from "vitest";
import {
  CREATED_AT,
  desired,
  desiredParameter,
  desiredUser,
  live,
  liveUser,
} from "../../test/builders/plan.ts";
import { comparePlans, planConsistency } from "./compare-plans.ts";
import type { Plan } from "./model.ts";
import { planChanges } from "./plan-changes.ts";
import { readPlanFile, writePlanFile } from "./plan-file.ts";

/* A saved plan against the plan derived again from the same inputs: apply runs the reviewed plan and nothing else. */

function derive(createdAt = CREATED_AT): Plan {
  return planChanges(
    desired({
      securityParameters: [desiredParameter("Contractor Parameter", { MinPasswordLength: 14 })],
      users: [
        desiredUser("jdoe", { fields: { FirstName: "Jane", LastName: "Doe", Title: "Analyst" } }),
        desiredUser("kmurphy", { securityParameter: "Contractor Parameter" }),
      ],
    }),
    live({ users: [liveUser(1, "svc_gitops"), liveUser(7, "jdoe", { Title: "Intern" })] }),
    { createdAt },
  );
}

/** The plan as `plan --out` saved it and `apply FILE` reads it, edited by `edit`. */
function saved(edit: (plan: Plan) => void = () => {}): Plan {
  const plan = readPlanFile(writePlanFile(derive()));
  edit(plan);
  return plan;
}

const step = (plan: Plan, id: string) => {
  const found = plan.steps.find((s) => s.id === id);
  if (!found) throw new Error(`no step ${id} in ${plan.steps.map((s) => s.id).join(", ")}`);
  return found;
};

describe("comparePlans", () => {
  it("finds nothing between a saved plan and the same plan derived later", () => {
    expect(derive().steps.map((s) => s.id)).toEqual([
      "SecurityParameter/Contractor Parameter#create",
      "User/jdoe#update",
      "User/kmurphy#create",
    ]);
    expect(comparePlans(saved(), derive("2026-11-22T08:00:00.000Z"))).toEqual([]);
  });

  it("names an update step turned into a delete", () => {
    const tampered = saved((plan) => {
      step(plan, "User/jdoe#update").op = "user.delete";
    });
    expect(comparePlans(tampered, derive())).toEqual([
      "the saved plan: step User/jdoe#update runs user.delete, which an update of a User never runs",
      'step User/jdoe#update.op: "user.delete" in the saved plan, "user.update" in a fresh plan',
    ]);
  });

  it("names a delete step that replaced an update, id and all", () => {
    const tampered = saved((plan) => {
      Object.assign(step(plan, "User/jdoe#update"), { id: "User/jdoe#delete", op: "user.delete" });
    });
    expect(comparePlans(tampered, derive())).toEqual([
      "the saved plan: step User/jdoe#delete runs user.delete, which an update of a User never runs",
      "step User/jdoe#delete (user.delete) is in the saved plan but not in a fresh plan",
      "step User/jdoe#update (user.update) is in a fresh plan but not in the saved plan",
    ]);
  });

  it("names roles added to a step's input", () => {
    const tampered = saved((plan) => {
      step(plan, "User/jdoe#update").input.roles = [1];
    });
    expect(comparePlans(tampered, derive())).toEqual([
      "step User/jdoe#update.input.roles: [1] in the saved plan, absent in a fresh plan",
    ]);
  });

  it("names an extra step, even one that fits its change", () => {
    const tampered = saved((plan) => {
      plan.steps.push({
        ...step(plan, "User/jdoe#update"),
        id: "User/jdoe#deactivate",
        op: "user.deactivate",
      });
    });
    expect(comparePlans(tampered, derive())).toEqual([
      "step User/jdoe#deactivate (user.deactivate) is in the saved plan but not in a fresh plan",
    ]);
  });

  it("names a changed dependency, and ignores the order dependencies are listed in", () => {
    const dropped = saved((plan) => {
      step(plan, "User/kmurphy#create").dependsOn = [];
    });
    expect(comparePlans(dropped, derive())).toEqual([
      'step User/kmurphy#create.dependsOn: [] in the saved plan, ["SecurityParameter/Contractor Parameter#create"] in a fresh plan',
    ]);
    // The same two dependencies, listed in another order.
    const both = ["User/jdoe#update", "SecurityParameter/Contractor Parameter#create"];
    const fresh = derive();
    step(fresh, "User/kmurphy#create").dependsOn = [...both];
    const reordered = saved((plan) => {
      step(plan, "User/kmurphy#create").dependsOn = [...both].reverse();
    });
    expect(comparePlans(reordered, fresh)).toEqual([]);
  });

  it("names a change whose steps no longer match it, and a change edited to look harmless", () => {
    const tampered = saved((plan) => {
      const change = plan.changes.find((c) => c.id === "User/jdoe");
      if (!change) throw new Error("no change User/jdoe");
      change.action = "delete";
    });
    expect(comparePlans(tampered, derive())).toEqual([
      "the saved plan: step User/jdoe#update runs user.update, which a delete of a User never runs",
      "the saved plan: change User/jdoe is a delete marked not destructive",
      'change User/jdoe.action: "delete" in the saved plan, "update" in a fresh plan',
    ]);
  });

  it("names a plan-level option or summary that was edited", () => {
    const tampered = saved((plan) => {
      plan.options.allowDelete = true;
      plan.summary.add = 0;
    });
    expect(comparePlans(tampered, derive())).toEqual([
      "plan.options.allowDelete: true in the saved plan, false in a fresh plan",
      "plan.summary.add: 0 in the saved plan, 2 in a fresh plan",
    ]);
  });
});

describe("planConsistency", () => {
  it("holds for every plan the planner makes", () => {
    expect(planConsistency(derive())).toEqual([]);
  });

  it("finds a change or a step listed twice, once per repeat", () => {
    const plan = saved((p) => {
      p.steps.push(step(p, "User/jdoe#update"));
      p.changes.push(p.changes[0] as Plan["changes"][number]);
    });
    expect(planConsistency(plan).filter((problem) => problem.includes("listed twice"))).toEqual([
      "change SecurityParameter/Contractor Parameter is listed twice",
      "step User/jdoe#update is listed twice",
    ]);
  });

  it("finds steps of no change, changes with no step, unknown and late dependencies", () => {
    const plan = saved((p) => {
      step(p, "User/jdoe#update").change = "User/nobody";
      step(p, "SecurityParameter/Contractor Parameter#create").dependsOn = ["User/kmurphy#create"];
      step(p, "User/kmurphy#create").environment = "dev";
    });
    expect(planConsistency(plan)).toEqual([
      "step SecurityParameter/Contractor Parameter#create depends on User/kmurphy#create, which does not come before it",
      "step User/jdoe#update belongs to change User/nobody, which the plan does not have",
      "step User/kmurphy#create talks to dev, which is not an environment of the plan",
      "change User/jdoe has no step",
    ]);
  });
});
