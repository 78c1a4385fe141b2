import { describe, expect, it } from "vitest";
import { actorIdentity, approversOf } from "./actor.ts";

describe("actorIdentity: who runs egp, and where the name came from", () => {
  it("takes EGP_ACTOR, else GitHub's variables, else the OS user, outside GitHub Actions", () => {
    expect(actorIdentity({ EGP_ACTOR: "bob", GITHUB_ACTOR: "alice" })).toEqual({
      name: "bob",
      source: "EGP_ACTOR",
    });
    expect(actorIdentity({ GITHUB_ACTOR: "alice" })).toEqual({ name: "alice", source: "GITHUB_ACTOR" });
    expect(actorIdentity({}).source).toBe("os");
  });

  it("in GitHub Actions, names who started the run: the re-run's starter before the event's actor", () => {
    const ci = { GITHUB_ACTIONS: "true", GITHUB_ACTOR: "pusher", GITHUB_TRIGGERING_ACTOR: "alice" };
    expect(actorIdentity(ci)).toEqual({ name: "alice", source: "GITHUB_TRIGGERING_ACTOR" });
    expect(actorIdentity({ GITHUB_ACTIONS: "true", GITHUB_ACTOR: "alice" })).toEqual({
      name: "alice",
      source: "GITHUB_ACTOR",
    });
    // The same name, in any case, is no conflict: the record keeps GitHub as its source.
    expect(actorIdentity({ ...ci, EGP_ACTOR: "Alice" })).toEqual({
      name: "alice",
      source: "GITHUB_TRIGGERING_ACTOR",
    });
  });

  it("refuses, in GitHub Actions, an EGP_ACTOR naming anyone but who started the run", () => {
    expect(() =>
      actorIdentity({ GITHUB_ACTIONS: "true", GITHUB_TRIGGERING_ACTOR: "alice", EGP_ACTOR: "bob" }),
    ).toThrow(
      expect.objectContaining({
        code: "EGP_ACTOR_MISMATCH",
        message:
          "EGP_ACTOR is bob, but GitHub Actions says alice started this run (GITHUB_TRIGGERING_ACTOR); in CI the actor is who started the run: remove EGP_ACTOR",
      }),
    );
  });
});

describe("approversOf: the approvers CI records", () => {
  it("splits on commas and spaces, keeps each once in order, and drops what is no name", () => {
    expect(approversOf({ EGP_APPROVERS: " carol, dave\nerin,carol,," })).toEqual(["carol", "dave", "erin"]);
    expect(approversOf({})).toEqual([]);
    expect(approversOf({ EGP_APPROVERS: `${"x".repeat(101)},ok` })).toEqual(["ok"]);
  });
});
