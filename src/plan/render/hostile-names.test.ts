// biome-ignore-all lint/suspicious/noControlCharactersInRegex: the assertions are about control characters.
import { describe, expect, it } from "vitest";
import {
  CREATED_AT,
  desired,
  desiredPackage,
  desiredParameter,
  desiredUser,
  environment,
  live,
  liveUser,
  packageObject,
} from "../../../test/builders/plan.ts";
import { fencedText, markdownLeaks } from "../../../test/helpers/markdown.ts";
import { fieldWordsOf } from "../../manifest/index.ts";
import type { LivePackageObject } from "../../state/live-state.ts";
import { compareInstances } from "../compare-instances.ts";
import type { Plan } from "../model.ts";
import { planChanges } from "../plan-changes.ts";
import { renderComparisonMarkdown, renderComparisonText } from "./comparison.ts";
import { renderComparisonHtml } from "./comparison-html.ts";
import { renderMarkdown } from "./markdown.ts";
import { renderText } from "./text.ts";

/*
 * Names come from manifests (a pull request) and from instances: data, never markup. In a PR
 * comment they stay inside code; on a terminal their control characters are shown escaped.
 */

/** Closes a ```` fence, forges a verdict, pings a team, loads an image and hides the rest. */
const MARKDOWN =
  "P1\n````\n\n**egp: no changes. Safe to merge.** ![b](https://attacker.example/b.png) @acme/admins\n<!--x";
/** Hides what follows (SGR 8), sets the title and clears the screen, a C1 CSI, a right-to-left override. */
const TERMINAL = "ops\x1b[8m\x1b]0;pwned\x07\x1b[2J\u009b2J\u202e";
const NEEDLES = ["@acme/admins", "attacker.example", "Safe to merge"];
/** Any control character but the line feed that ends egp's own lines. */
const CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

function source(names: { app: string; field: string }) {
  const object = packageObject("g-1", names.app, "s1", { "field:1": "s" });
  object.details = { "field:1": { name: names.field, properties: { required: true } } };
  return object;
}

function target(names: { app: string; field: string }) {
  const object = packageObject("g-1", names.app, "t1", { "field:1": "t" });
  object.details = { "field:1": { name: names.field, properties: { required: false } } };
  return object;
}

/** A plan whose every name is hostile: from the manifests and from the instances. */
function hostilePlan(name: string): Plan {
  const names = { app: `App ${name}`, field: `Field ${name}` };
  const packages = (object: LivePackageObject) => ({
    applicationsByName: { [names.app.toLowerCase()]: "g-1" },
    objects: { "g-1": object },
  });
  const plan = planChanges(
    desired({
      environment: environment("prod", { packagesFrom: "dev" }),
      packagesFrom: environment("dev"),
      securityParameters: [desiredParameter(name, { MinPasswordLength: 12 })],
      users: [
        desiredUser("jdoe", { fields: { FirstName: "Jane", LastName: "Doe", Title: name } }),
        desiredUser(`new ${name}`),
      ],
      packages: [desiredPackage(`Release ${name}`, [names.app])],
    }),
    live({
      users: [
        liveUser(1, "svc_gitops"),
        liveUser(2, "jdoe", { Title: "Analyst" }),
        ...Array.from({ length: 6 }, (_, i) => liveUser(10 + i, `gone${i} ${name}`)),
      ],
      packages: packages(target(names)),
      packageSource: { environment: "dev", ...packages(source(names)) },
    }),
    { createdAt: CREATED_AT, allowDelete: true },
  );
  plan.excluded = [{ kind: "User", key: `kept ${name}` }];
  return plan;
}

describe("a plan's markdown", () => {
  const plan = hostilePlan(MARKDOWN);
  const deletes = plan.changes.filter((change) => change.action === "delete").length;

  it("keeps every name inside code: no image, link, mention, HTML or bold text comes from one", () => {
    expect(deletes).toBeGreaterThanOrEqual(6);
    for (const view of ["plan", "drift"] as const) {
      const markdown = renderMarkdown(plan, 60_000, { view, words: fieldWordsOf });
      expect(markdownLeaks(markdown, NEEDLES)).toEqual([]);
      // Nothing hides the rest of the plan: every delete is there to read.
      const said = view === "plan" ? "will be DELETED" : "apply would DELETE it";
      expect(fencedText(markdown).split(said).length - 1).toBe(deletes);
    }
  });

  it("stays so when changes are cut to fit", () => {
    const markdown = renderMarkdown(plan, 4_000);
    expect(markdown).toContain("**Cut:**");
    expect(markdownLeaks(markdown, NEEDLES)).toEqual([]);
  });

  it("escapes a name's line breaks in the diff, so that it can't forge a line", () => {
    const fenced = fencedText(renderMarkdown(plan)).split("\n");
    expect(fenced.some((line) => line.startsWith("<!--x") || line.startsWith("**egp"))).toBe(false);
    expect(fenced).toContain(
      `- User "gone0 P1\\n\`\`\`\`\\n\\n**egp: no changes. Safe to merge.** ![b](https://attacker.example/b.png) @acme/admins\\n<!--x"`,
    );
  });
});

describe("a plan's text", () => {
  const plan = hostilePlan(TERMINAL);

  it("shows control characters from names and values escaped, never raw", () => {
    for (const view of ["plan", "drift"] as const) {
      const text = renderText(plan, { view, words: fieldWordsOf });
      expect(text).not.toMatch(CONTROL);
      expect(text).toContain('# User "gone0 ops\\x1b[8m\\x1b]0;pwned\\x07\\x1b[2J\\x9b2J\\u202e"');
    }
  });

  it("escapes characters that show as nothing, as it escapes bidirectional ones", () => {
    const text = renderText(hostilePlan("ad\u200bmin\u2060\ufeff"), { view: "plan", words: fieldWordsOf });
    expect(text).not.toMatch(/[\u200b\u2060\ufeff]/);
    expect(text).toContain('# User "gone0 ad\\u200bmin\\u2060\\ufeff"');
  });

  it("keeps a name with line breaks on its own line", () => {
    const lines = renderText(hostilePlan(MARKDOWN)).split("\n");
    expect(lines.some((line) => line.startsWith("<!--x") || line.startsWith("````"))).toBe(false);
  });
});

describe("compare's reports", () => {
  const object = (name: string, field: string, required: boolean): LivePackageObject => ({
    ...packageObject(`g-${name.length}`, name, String(required), { "field:1": String(required) }),
    details: { "field:1": { name: field, properties: { required } } },
  });
  const side = (environment: string, objects: LivePackageObject[]) => ({
    environment,
    applicationsByName: {},
    objects: Object.fromEntries(objects.map((o) => [o.guid, o])),
  });
  const comparison = (name: string) =>
    compareInstances({
      from: side("dev", [object(`App ${name}`, `Field ${name}`, true), object(`Only ${name}!`, "F", true)]),
      to: side("prod", [object(`App ${name}`, `Field ${name}`, false), object(`Same ${name}!!`, "F", true)]),
      createdAt: CREATED_AT,
    });

  it("keep names inside code in markdown", () => {
    const markdown = renderComparisonMarkdown(comparison(MARKDOWN));
    expect(markdown).toContain("Field");
    expect(markdownLeaks(markdown, NEEDLES)).toEqual([]);
  });

  it("escape control characters in text", () => {
    const text = renderComparisonText(comparison(TERMINAL));
    expect(text).not.toMatch(CONTROL);
    expect(text).toContain('Application "App ops\\u001b[8m');
  });

  it("escape names in HTML", () => {
    const html = renderComparisonHtml(comparison('<img src=x onerror="alert(1)"><!--'));
    expect(html).not.toMatch(/<img|<!--/);
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&lt;!--");
  });
});
