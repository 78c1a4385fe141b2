import { describe, expect, it } from "vitest";
import {
  CREATED_AT,
  desired,
  desiredParameter,
  desiredUser,
  live,
  liveParameter,
  liveUser,
} from "../../test/builders/plan.ts";
import { type DesiredAbsent, NO_PRUNING } from "../manifest/index.ts";
import { comparePlans } from "./compare-plans.ts";
import { globMatcher } from "./glob.ts";
import { formatPlanProblem } from "./kinds/kind.ts";
import { planChanges, planRefusals } from "./plan-changes.ts";
import { renderMarkdown } from "./render/markdown.ts";
import { renderText } from "./render/text.ts";
import { keysToRead, narrowDesired, parseTargets } from "./targets.ts";

/* Deletes on purpose and subsets in the pure planner: ensure: absent, PrunePolicy exclude, and --target. */

const plan = (d: ReturnType<typeof desired>, l = live(), options: { targets?: string[] } = {}) =>
  planChanges(d, l, { createdAt: CREATED_AT, ...options });

function absent(kind: string, name: string, line = 4): DesiredAbsent {
  return {
    kind,
    ensure: "absent",
    key: name.toLowerCase(),
    name,
    source: { file: "manifests/gone.yaml", line, column: 11 },
    path: `${kind === "User" ? "users" : "securityParameters"}[0].${kind === "User" ? "userName" : "name"}`,
  };
}

const people = live({
  users: [
    liveUser(1, "svc_gitops"),
    liveUser(2, "dpatel"),
    liveUser(3, "breakglass-ops"),
    liveUser(4, "kmurphy", { Title: "Old" }),
  ],
});

describe("globs", () => {
  it("match whole names, case-insensitively, * for any run of characters", () => {
    const matches = globMatcher(["breakglass*", "Ops.Admin"]);
    expect(["BreakGlass-1", "breakglass", "ops.admin"].map(matches)).toEqual([true, true, true]);
    expect(["x-breakglass", "opsXadmin", "ops.admin2"].map(matches)).toEqual([false, false, false]);
  });
});

describe("ensure: absent", () => {
  it("plans a loud delete of that one user, with its source, and leaves the other unmanaged ones", () => {
    const result = plan(desired({ absent: [absent("User", "DPatel")] }), people);
    expect(result.changes).toEqual([
      {
        id: "User/dpatel",
        kind: "User",
        key: "dpatel",
        action: "delete",
        fields: [],
        notes: ["ensure: absent in the manifests"],
        destructive: true,
        source: { file: "manifests/gone.yaml", line: 4, column: 11 },
      },
    ]);
    expect(result.steps.map((s) => [s.op, s.input])).toEqual([
      ["user.delete", { userName: "dpatel", id: 2 }],
    ]);
    expect(result.unmanaged.filter((u) => u.kind === "User").map((u) => u.key)).toEqual([
      "svc_gitops",
      "breakglass-ops",
      "kmurphy",
    ]);
  });

  it("plans nothing for an object that is already gone", () => {
    expect(plan(desired({ absent: [absent("User", "nobody")] }), people).changes).toEqual([]);
  });

  it("deletes a security parameter no user has", () => {
    const l = live({ securityParameters: [...live().securityParameters, liveParameter(7, "Old Parameter")] });
    const result = plan(desired({ absent: [absent("SecurityParameter", "old parameter")] }), l);
    expect(result.changes.map((c) => [c.id, c.action, c.destructive])).toEqual([
      ["SecurityParameter/Old Parameter", "delete", true],
    ]);
  });

  it("is refused for the login account, the default parameter and a parameter still in use", () => {
    const l = live({
      securityParameters: [...live().securityParameters, liveParameter(7, "Used Parameter")],
      users: [liveUser(1, "svc_gitops"), liveUser(2, "dpatel", { SecurityId: 7 })],
    });
    const d = desired({
      absent: [
        absent("User", "SVC_GitOps", 2),
        absent("SecurityParameter", "General User Parameter", 5),
        absent("SecurityParameter", "Used Parameter", 8),
      ],
      users: [desiredUser("kmurphy", { securityParameter: "used parameter" })],
    });
    expect(planRefusals(d, l).map(formatPlanProblem)).toEqual([
      'manifests/gone.yaml:2:11 users[0].userName: "SVC_GitOps" is the account egp logs in as to prod; it can\'t be deleted',
      'manifests/gone.yaml:5:11 securityParameters[0].name: "General User Parameter" is the default security parameter of prod; make another one the default first',
      'manifests/gone.yaml:8:11 securityParameters[0].name: "Used Parameter" is still the security parameter of 2 user(s) on prod (dpatel, kmurphy); give them another one first',
      // The user who names it also learns that the parameter goes.
      'manifests/test.yaml:1:1 securityParameter: security parameter "used parameter" does not exist on prod, and no manifest for prod defines it',
    ]);
  });
});

describe("PrunePolicy exclude", () => {
  it("never prunes the names it lists, even with --allow-delete, and lists them as excluded", () => {
    const prune = {
      ...NO_PRUNING,
      users: "delete" as const,
      exclude: { ...NO_PRUNING.exclude, users: ["BREAKGLASS*"] },
    };
    const result = plan(desired({ prune }), people);
    expect(result.changes.map((c) => `${c.action} ${c.key}`)).toEqual(["delete dpatel", "delete kmurphy"]);
    expect(result.excluded).toEqual([{ kind: "User", key: "breakglass-ops" }]);
    const forced = planChanges(desired({ prune }), people, { createdAt: CREATED_AT, allowDelete: true });
    expect(forced.changes.map((c) => c.key)).not.toContain("breakglass-ops");
  });

  it("shows them in text and markdown, apart from the unmanaged ones", () => {
    const prune = { ...NO_PRUNING, exclude: { ...NO_PRUNING.exclude, users: ["breakglass*"] } };
    const result = plan(desired({ prune }), people);
    const line = 'Excluded, never pruned (PrunePolicy exclude): User "breakglass-ops".';
    expect(renderText(result)).toContain(
      `Unmanaged, left alone (not in the manifests; see PrunePolicy): 2 SecurityParameters, 3 Users.\n${line}`,
    );
    // In markdown a name from the manifests is kept in code.
    expect(renderMarkdown(result)).toContain(
      "Excluded, never pruned (PrunePolicy exclude): User `breakglass-ops`.",
    );
  });

  it("keeps security parameters too", () => {
    const l = live({ securityParameters: [...live().securityParameters, liveParameter(7, "Break Glass")] });
    const prune = {
      ...NO_PRUNING,
      securityParameters: "delete" as const,
      exclude: { ...NO_PRUNING.exclude, securityParameters: ["break*"] },
    };
    const result = plan(desired({ prune }), l);
    expect(result.changes.map((c) => c.key)).toEqual(["Default Administrative User"]);
    expect(result.excluded).toEqual([{ kind: "SecurityParameter", key: "Break Glass" }]);
  });
});

describe("--target", () => {
  const everything = desired({
    securityParameters: [desiredParameter("Contractor Parameter", { MinPasswordLength: 14 })],
    users: [
      desiredUser("kmurphy", {
        securityParameter: "Contractor Parameter",
        fields: { FirstName: "K", LastName: "M" },
      }),
      desiredUser("anguyen", { fields: { FirstName: "A", LastName: "N" } }),
    ],
  });

  it("plans the targeted objects and the changes their steps depend on, and says how many it targets", () => {
    const result = plan(everything, people, { targets: ["user/K*"] });
    expect(result.changes.map((c) => `${c.action} ${c.id}`)).toEqual([
      "create SecurityParameter/Contractor Parameter",
      "update User/kmurphy",
    ]);
    expect(result.changes[0]?.notes).toEqual(["not targeted: a targeted change depends on it"]);
    expect(result.unmanaged).toEqual([]);
    expect(result.partial).toEqual({ targeted: 1, of: 8 });
    expect(result.options).toEqual({ allowDelete: false, enforceRoles: false, targets: ["User/K*"] });
    // Without targets: anguyen is created too, and the live users not named are unmanaged.
    expect(plan(everything, people).changes.map((c) => c.id)).toContain("User/anguyen");
  });

  it("keeps only the refusals of targeted objects", () => {
    const d = desired({ ...everything, absent: [absent("User", "svc_gitops")] });
    expect(() => plan(d, people)).toThrow(/svc_gitops/);
    expect(plan(d, people, { targets: ["User/kmurphy"] }).changes.map((c) => c.key)).toContain("kmurphy");
  });

  it("digests only its targets: another object changing leaves a saved partial plan fresh", () => {
    const before = plan(everything, people, { targets: ["User/kmurphy"] });
    const others = live({
      users: people.users.map((u) =>
        u.user.UserName === "dpatel" ? liveUser(2, "dpatel", { Title: "New" }) : u,
      ),
    });
    const after = plan({ ...everything, digest: "other files" }, others, { targets: ["User/kmurphy"] });
    expect(after.digests).toEqual(before.digests);
    expect(after.id).toBe(before.id);
    const target = live({
      users: people.users.map((u) =>
        u.user.UserName === "kmurphy" ? liveUser(4, "kmurphy", { Title: "New" }) : u,
      ),
    });
    expect(plan(everything, target, { targets: ["User/kmurphy"] }).digests.live).not.toBe(
      before.digests.live,
    );
  });

  it("compares a saved partial plan by what it applies: its count of other objects may change", () => {
    const more = live({ users: [...people.users, liveUser(9, "newcomer")] });
    const saved = plan(everything, people, { targets: ["User/k*"] });
    const fresh = plan(everything, more, { targets: ["User/k*"] });
    expect(fresh.partial?.of).toBe((saved.partial?.of ?? 0) + 1);
    expect(fresh.digests).toEqual(saved.digests);
    expect(comparePlans(saved, fresh)).toEqual([]);
  });

  it("says it is partial, first, in text and markdown", () => {
    const result = plan(everything, people, { targets: ["User/kmurphy"] });
    const line = "partial plan: 1 of 8 objects targeted (--target User/kmurphy)";
    expect(renderText(result).split("\n")[0]).toBe(line);
    expect(renderMarkdown(result)).toContain(
      "### egp plan for `prod`\n\n_partial plan: 1 of 8 objects targeted (`--target User/kmurphy`)_\n",
    );
    expect(renderText(plan(everything, people))).not.toContain("partial plan");
  });

  it("refuses a target that names no kind, in one line", () => {
    expect(() => parseTargets(["Widget/x"])).toThrow(
      '--target "Widget/x": unknown kind "Widget" (expected KIND/KEY, KIND one of SecurityParameter, User, Package, Record)',
    );
    expect(() => parseTargets(["User"])).toThrow('--target "User": expected KIND/KEY');
  });

  it("accepts a quoted key, as a shell may pass it", () => {
    expect(parseTargets(['Package/"GRC Core"'])).toEqual([{ kind: "Package", pattern: "GRC Core" }]);
  });

  it("narrows reads: users by exact name only when nothing targeted reads them whole", () => {
    expect(keysToRead(parseTargets(["User/kmurphy", "User/AN"]), "User")).toEqual(["kmurphy", "AN"]);
    expect(keysToRead(parseTargets(["User/k*"]), "User")).toBeUndefined();
    expect(keysToRead(parseTargets(["Package/GRC Core"]), "User")).toEqual([]);
    // A parameter is deleted only when no user has it: its plan reads every user.
    expect(keysToRead(parseTargets(["User/kmurphy", "SecurityParameter/x"]), "User")).toBeUndefined();
    expect(keysToRead([], "User")).toBeUndefined();
  });

  it("narrows the desired state, keeping whole what a targeted kind's plan reads", () => {
    const narrowed = narrowDesired(everything, parseTargets(["User/anguyen"]));
    expect(narrowed.users.map((u) => u.key)).toEqual(["anguyen"]);
    expect(narrowed.securityParameters.map((p) => p.name)).toEqual(["Contractor Parameter"]);
    const packagesOnly = narrowDesired(everything, parseTargets(["Package/*"]));
    expect([packagesOnly.users.length, packagesOnly.securityParameters.length]).toEqual([0, 0]);
  });
});
