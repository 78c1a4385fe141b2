import { describe, expect, it } from "vitest";
import { startGitHubStandIn } from "../../test/ci/github-stand-in.ts";
import { decideDriftIssue, LABEL_STYLE, syncDriftIssue } from "./drift-issue.ts";
import { createGitHub } from "./github.ts";
import { parseRepo } from "./repo.ts";

describe("decideDriftIssue", () => {
  it("opens an issue on drift when none is open, and updates the oldest open one otherwise", () => {
    expect(decideDriftIssue(2, [])).toEqual({ action: "open" });
    expect(decideDriftIssue(2, [4, 9])).toEqual({ action: "update", issue: 4 });
  });

  it("closes every open one when there is no drift, and does nothing when none is open", () => {
    expect(decideDriftIssue(0, [4, 9])).toEqual({ action: "close", issues: [4, 9] });
    expect(decideDriftIssue(0, [])).toEqual({ action: "none" });
  });

  it("fails on any other exit code, whatever is open", () => {
    for (const code of [1, 3, 137]) {
      expect(decideDriftIssue(code, [4])).toEqual({
        action: "fail",
        reason: `egp drift exited with code ${code}; the drift issue is left as it is`,
      });
    }
  });
});

describe("syncDriftIssue and the label", () => {
  const input = {
    exitCode: 2,
    label: "egp-drift",
    marker: "<!-- egp-drift:prod -->",
    title: "Drift on prod",
    body: () => "<!-- egp-drift:prod -->\nprod has drifted",
    resolved: "resolved",
  };

  it("creates a missing label before opening the issue, so that the next check finds the issue again", async () => {
    // A token without push access: GitHub drops a label the repository lacks from a new issue.
    const github = await startGitHubStandIn({ dropUnknownLabels: true });
    try {
      const client = createGitHub({ apiUrl: github.url, token: github.token });
      const repo = parseRepo(github.repository);
      expect(await syncDriftIssue(client, repo, input)).toEqual({ decision: { action: "open" }, issue: 1 });
      expect(github.labels.get("egp-drift")).toEqual({ name: "egp-drift", ...LABEL_STYLE });
      expect(github.issues[0]?.labels).toEqual(["egp-drift"]);
      expect(await syncDriftIssue(client, repo, input)).toEqual({
        decision: { action: "update", issue: 1 },
        issue: 1,
      });
      expect(github.issues).toHaveLength(1);
    } finally {
      await github.close();
    }
  });

  it("leaves a label that is already there as its owners made it", async () => {
    const github = await startGitHubStandIn({ dropUnknownLabels: true });
    try {
      github.labels.set("egp-drift", { name: "egp-drift", color: "0e8a16", description: "ours" });
      const client = createGitHub({ apiUrl: github.url, token: github.token });
      await syncDriftIssue(client, parseRepo(github.repository), input);
      expect(github.labels.get("egp-drift")).toEqual({
        name: "egp-drift",
        color: "0e8a16",
        description: "ours",
      });
      expect(github.requests.filter((r) => r.method === "POST" && r.url.endsWith("/labels"))).toEqual([]);
      expect(github.issues[0]?.labels).toEqual(["egp-drift"]);
    } finally {
      await github.close();
    }
  });
});
