import { describe, expect, it } from "vitest";
import { type Approval, approversIn, approversOfRun } from "./approvers.ts";
import type { GitHub } from "./github.ts";

const approval = (login: string, state: string, ...environments: string[]): Approval => ({
  state,
  environments: environments.map((name) => ({ name })),
  user: { login },
});

describe("approversIn: who approved the job's environment", () => {
  it("keeps the approvals of that environment, each login once, and no rejection", () => {
    const approvals = [
      approval("carol", "approved", "prod"),
      approval("dave", "rejected", "prod"),
      approval("erin", "approved", "test"),
      approval("carol", "approved", "prod", "test"),
      approval("frank", "approved", "test", "prod"),
    ];
    expect(approversIn(approvals, "prod")).toEqual(["carol", "frank"]);
    expect(approversIn(approvals, "staging")).toEqual([]);
  });

  it("asks GitHub for the run's approvals, and refuses a run id that is not one", async () => {
    const asked: string[] = [];
    const github: GitHub = {
      request: async <T>(_method: string, path: string) => {
        asked.push(path);
        return [approval("carol", "approved", "prod")] as T;
      },
      paginate: async () => [],
    };
    const repo = { owner: "acme", repo: "grc-config" };
    expect(await approversOfRun(github, repo, "42", "prod")).toEqual(["carol"]);
    expect(asked).toEqual(["/repos/acme/grc-config/actions/runs/42/approvals"]);
    await expect(approversOfRun(github, repo, "../x", "prod")).rejects.toThrow(/not a run id/);
  });
});
