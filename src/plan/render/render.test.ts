import { describe, expect, it } from "vitest";
import {
  CREATED_AT,
  desired,
  desiredPackage,
  desiredUser,
  environment,
  live,
  liveUser,
  packageObject,
} from "../../../test/builders/plan.ts";
import { fieldWordsOf, Secret } from "../../manifest/index.ts";
import { planChanges } from "../plan-changes.ts";
import { readPlanFile, writePlanFile } from "../plan-file.ts";
import { renderJson } from "./json.ts";
import { renderMarkdown } from "./markdown.ts";
import { renderText } from "./text.ts";

function bigPlan(users: number) {
  return planChanges(
    desired({
      users: Array.from({ length: users }, (_, i) =>
        desiredUser(`user${String(i).padStart(5, "0")}`, {
          fields: { FirstName: "Jane", LastName: "Doe", Title: `Title ${i}`, Department: "Risk" },
          initialPassword: new Secret(`Secret#${i}pw`),
        }),
      ),
    }),
    live({ users: [liveUser(1, "svc_gitops"), liveUser(2, "legacy")] }),
    { createdAt: CREATED_AT },
  );
}

/** A promotion of `apps` applications, each with `fields` fields that become required on the source. */
function packagePlan(apps: number, fields: number, users = 0) {
  const names = Array.from({ length: apps }, (_, i) => `App ${String(i).padStart(3, "0")}`);
  const side = (required: boolean, prefix: string) => {
    const objects = Object.fromEntries(
      names.map((name, a) => {
        const parts = Object.fromEntries(
          Array.from({ length: fields }, (_, f) => [`field:${a}-${f}`, `${prefix}${f}`]),
        );
        const object = packageObject(`g-${a}`, name, `${prefix}${a}`, parts);
        object.details = Object.fromEntries(
          Array.from({ length: fields }, (_, f) => [
            `field:${a}-${f}`,
            { name: `Field <${f}>`, properties: { required } },
          ]),
        );
        return [`g-${a}`, object];
      }),
    );
    return {
      applicationsByName: Object.fromEntries(names.map((n, a) => [n.toLowerCase(), `g-${a}`])),
      objects,
    };
  };
  return planChanges(
    desired({
      environment: environment("prod", { packagesFrom: "dev" }),
      packagesFrom: environment("dev"),
      packages: [desiredPackage("Release", names)],
      users: Array.from({ length: users }, (_, i) => desiredUser(`user${i}`)),
    }),
    live({ packages: side(false, "t"), packageSource: { environment: "dev", ...side(true, "s") } }),
    { createdAt: CREATED_AT },
  );
}

describe("package parts", () => {
  it("are listed under their object in text, with severities", () => {
    const text = renderText(packagePlan(1, 2));
    expect(text).toContain('      ~ Application App 000: "1 level, 2 fields" -> "2 to change (2 critical)"');
    expect(text).toContain('          ~ field "Field <0>": required false → true [critical]');
  });

  it("are folded per object in markdown, names in code in the summary", () => {
    const markdown = renderMarkdown(packagePlan(2, 1));
    expect(markdown).toContain(
      "<details><summary><code>Package &quot;Release&quot; · Application App 001: 1 to change (1 critical)</code></summary>",
    );
    expect(markdown).toContain('~ field "Field <0>": required false → true [critical]');
    // The object's line stays in the package's fence; its parts are only in the fold.
    expect(markdown.split('~ field "Field <0>"').length - 1).toBe(2);
  });

  it("are cut per object to stay within the markdown cap, saying so", () => {
    const plan = packagePlan(40, 60);
    const markdown = renderMarkdown(plan, 20_000);
    expect(markdown.length).toBeLessThanOrEqual(20_000);
    expect(markdown).toContain('» Package "Release"');
    expect(markdown).toMatch(
      /\*\*Cut:\*\* the part-by-part diff of \d+ package object\(s\) \(\d+ characters\)/,
    );
    expect(renderMarkdown(plan, 20_000)).toBe(markdown);
  });

  it("give way to every change first when the cap is reached", () => {
    const plan = packagePlan(10, 60, 30);
    const markdown = renderMarkdown(plan, 12_000);
    expect(markdown.length).toBeLessThanOrEqual(12_000);
    expect(markdown).toContain("<details><summary>User (30)</summary>");
    expect(markdown).toMatch(/\*\*Cut:\*\* the part-by-part diff of \d+ package object\(s\)/);
  });

  it("round-trip through plan files; a plan file without them still loads", () => {
    const plan = packagePlan(1, 1);
    const read = readPlanFile(writePlanFile(plan));
    expect(read.changes[0]?.fields[0]?.parts?.[0]).toMatchObject({ name: "Field <0>", severity: "critical" });
    const old = JSON.parse(writePlanFile(plan));
    delete old.changes[0].fields[0].parts;
    expect(readPlanFile(JSON.stringify(old)).changes[0]?.fields[0]?.parts).toBeUndefined();
    old.changes[0].fields[0].parts = [{ part: "field", name: "x" }];
    expect(() => readPlanFile(JSON.stringify(old), "plan.json")).toThrow(/plan\.json: .*parts\.0\.guid/);
  });
});

describe("renderText", () => {
  it("shows each change Terraform-style with a summary line", () => {
    const plan = planChanges(
      desired({
        users: [desiredUser("jdoe", { fields: { FirstName: "Jane", LastName: "Doe", Title: "Lead" } })],
      }),
      live({ users: [liveUser(7, "jdoe", { Title: "Analyst" })] }),
      { createdAt: CREATED_AT },
    );
    const text = renderText(plan);
    expect(text).toContain('# User "jdoe" will be updated in place (manifests/test.yaml:1:1)');
    expect(text).toContain('~ User "jdoe"');
    expect(text).toContain('~ Title: "Analyst" -> "Lead"');
    expect(text).toContain("Plan: 0 to add, 1 to change, 0 to destroy, 0 to promote.");
  });

  it("says when there is nothing to do", () => {
    const plan = planChanges(desired(), live(), { createdAt: CREATED_AT });
    expect(renderText(plan)).toMatch(/^No changes\. prod matches the manifests\./);
  });

  it("never prints a password", () => {
    const plan = bigPlan(3);
    for (const output of [renderText(plan), renderMarkdown(plan), renderJson(plan)]) {
      expect(output).not.toMatch(/Secret#\dpw/);
      expect(output).toContain("(sensitive)");
    }
  });
});

describe("the words of a plan for people", () => {
  const plan = planChanges(
    desired({
      users: [
        desiredUser("jdoe", {
          fields: { FirstName: "Jane", LastName: "Doe", AccountStatus: 1 },
          contacts: [{ ContactType: 7, ContactSubType: 2, IsDefault: true, Value: "jdoe@example.com" }],
        }),
      ],
    }),
    live({ users: [liveUser(7, "jdoe", { AccountStatus: 2 })] }),
    { createdAt: CREATED_AT },
  );

  it("name fields and values as manifests write them, where the JSON keeps the wire's", () => {
    const text = renderText(plan, { words: fieldWordsOf });
    expect(text).toContain('~ status: "inactive" -> "active"');
    expect(text).toContain(
      '~ contacts: [] -> [{"type":"email","subType":"business","value":"jdoe@example.com","default":true}]',
    );
    expect(text).not.toMatch(/AccountStatus|ContactType/);
    expect(renderMarkdown(plan, 60_000, { words: fieldWordsOf })).toContain(
      '~ status: "inactive" -> "active"',
    );
    expect(renderJson(plan)).toContain('"field": "AccountStatus"');
  });

  it("say, as a drift report, that the environment has drifted", () => {
    const text = renderText(plan, { view: "drift" });
    expect(text).toMatch(/^prod has drifted from the manifests:\n/);
    expect(text).toContain('# User "jdoe" has drifted (apply would update it in place)');
    expect(text).toContain("Drift: 0 to add, 1 to change, 0 to destroy, 0 to promote.");
    expect(text).not.toContain("egp will perform");
    const markdown = renderMarkdown(plan, 60_000, { view: "drift" });
    expect(markdown).toMatch(/^### egp drift: `prod` has drifted\n/);
    expect(markdown).not.toContain("egp plan");
    const none = planChanges(desired(), live(), { createdAt: CREATED_AT });
    expect(renderText(none, { view: "drift" })).toMatch(/^No drift\. prod matches the manifests\./);
    expect(renderMarkdown(none, 60_000, { view: "drift" })).toMatch(
      /^### egp drift: `prod` matches the manifests\n/,
    );
  });
});

describe("renderMarkdown", () => {
  it("renders a summary table and folds the changes per kind", () => {
    const markdown = renderMarkdown(bigPlan(2));
    expect(markdown).toContain("| 2 | 0 | 0 | 0 |");
    expect(markdown).toContain("<details><summary>User (2)</summary>");
    expect(markdown).not.toContain("**Cut:**");
  });

  it("stays under the limit, deterministically, and says what it cut", () => {
    const plan = bigPlan(2000);
    const markdown = renderMarkdown(plan);
    expect(markdown.length).toBeLessThanOrEqual(60_000);
    expect(markdown).toMatch(/\*\*Cut:\*\* \d+ change\(s\) \(\d+ characters\) are not shown/);
    expect(markdown).toMatch(/User \(\d+ of 2000 shown\)/);
    expect(renderMarkdown(plan)).toBe(markdown);
    const small = renderMarkdown(plan, 5_000);
    expect(small.length).toBeLessThanOrEqual(5_000);
  });
});

describe("plan files", () => {
  it("round-trip through JSON", () => {
    const plan = bigPlan(3);
    expect(readPlanFile(writePlanFile(plan))).toEqual(JSON.parse(renderJson(plan)));
  });

  it("refuse another format version and damaged files with a clear message", () => {
    const text = writePlanFile(bigPlan(1));
    expect(() => readPlanFile(text.replace('"formatVersion": 1', '"formatVersion": 2'), "plan.json")).toThrow(
      "plan.json: not a usable plan file (format version 2; this egp reads version 1)",
    );
    expect(() => readPlanFile("{", "plan.json")).toThrow(/it is not JSON/);
    expect(() => readPlanFile(text.replace('"steps": [', '"steps": 5, "x": ['), "plan.json")).toThrow(
      /steps/,
    );
  });
});
