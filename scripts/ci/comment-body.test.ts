import { describe, expect, it } from "vitest";
import { Secret } from "../../src/manifest/index.ts";
import { planChanges, renderMarkdown } from "../../src/plan/index.ts";
import { CREATED_AT, desired, desiredUser, environment, live } from "../../test/builders/plan.ts";
import {
  buildDriftIssueBody,
  buildPlanComment,
  driftMarker,
  driftResolvedComment,
  type EgpRun,
  planMarker,
} from "./comment-body.ts";

const run = (fields: Partial<EgpRun>): EgpRun => ({
  environment: "prod",
  exitCode: 2,
  stdout: "",
  stderr: "",
  ...fields,
});

describe("markers", () => {
  it("name the environment, and the folder when it is not the root", () => {
    expect(planMarker("prod")).toBe("<!-- egp-plan:prod -->");
    expect(planMarker("prod", ".")).toBe("<!-- egp-plan:prod -->");
    expect(planMarker("prod", "./")).toBe("<!-- egp-plan:prod -->");
    expect(planMarker("prod", "./infra/grc/")).toBe("<!-- egp-plan:infra/grc/prod -->");
    expect(driftMarker("prod")).toBe("<!-- egp-drift:prod -->");
  });
});

describe("buildPlanComment", () => {
  it("puts the marker first, egp's markdown, its messages folded, and a footer", () => {
    const body = buildPlanComment(
      run({ stdout: "### egp plan for `prod`\n\nchanges\n", stderr: "warning: x\n" }),
      {
        runUrl: "https://github.example/o/r/actions/runs/1",
        artifact: "egp-plan-prod",
      },
    );
    expect(body).toBe(
      [
        "<!-- egp-plan:prod -->",
        "### egp plan for `prod`",
        "",
        "changes",
        "",
        "<details><summary>egp's messages</summary>",
        "",
        "```text",
        "warning: x",
        "```",
        "",
        "</details>",
        "",
        "<sub>egp exit code 2 · [workflow run](https://github.example/o/r/actions/runs/1) · plan file: artifact `egp-plan-prod`</sub>",
        "",
      ].join("\n"),
    );
  });

  it("says that the plan failed, with egp's error in a fence it can't close, and no artifact", () => {
    const body = buildPlanComment(run({ exitCode: 1, stderr: "egp: bad ``` thing\n" }), {
      artifact: "egp-plan-prod",
    });
    expect(body).toContain(
      "### egp plan for `prod` failed\n\negp exited with code 1, so there is no plan to show.",
    );
    expect(body).toContain("````text\negp: bad ``` thing\n````");
    expect(body).not.toContain("artifact");
  });

  it("treats an exit code other than 0 and 2 (a killed process) as a failure", () => {
    expect(buildPlanComment(run({ exitCode: 137, stdout: "half a plan" }))).toContain("failed");
  });

  it("never holds the environment's password or a user's: the plan shows them as sensitive", () => {
    const envPassword = "Env#Pa55-of-prod";
    const userPassword = "User#Pa55-initial";
    const plan = planChanges(
      desired({
        environment: environment("prod", {
          auth: { username: "svc", domain: "", password: new Secret(envPassword), scheme: "Platform" },
        }),
        users: [desiredUser("snew", { initialPassword: new Secret(userPassword) })],
      }),
      live(),
      { createdAt: CREATED_AT },
    );
    const body = buildPlanComment(run({ stdout: renderMarkdown(plan) }));
    expect(body).toContain('+ User "snew"');
    expect(body).toContain('+ Password: "(sensitive)"');
    expect(body).not.toContain(envPassword);
    expect(body).not.toContain(userPassword);
  });
});

describe("drift issue bodies", () => {
  it("start with the marker, explain, and hold the report", () => {
    const body = buildDriftIssueBody(run({ stdout: '### egp plan for `prod`\n\n~ User "a"\n' }), {
      runUrl: "https://github.example/o/r/actions/runs/9",
    });
    expect(body.split("\n")[0]).toBe("<!-- egp-drift:prod -->");
    expect(body).toContain(
      "`prod` has drifted: the instance differs from the manifests (found by [this workflow run](https://github.example/o/r/actions/runs/9)).",
    );
    expect(body).toContain('~ User "a"');
  });

  it("stay within the limit", () => {
    const body = buildDriftIssueBody(run({ stdout: "x\n".repeat(100_000) }));
    expect(body.length).toBeLessThanOrEqual(65_536);
    expect(body).toContain("The whole output is in the log of the workflow run.");
  });

  it("say why an issue is closed", () => {
    expect(driftResolvedComment("prod")).toBe("`prod` matches the manifests again. Closing.");
  });
});
