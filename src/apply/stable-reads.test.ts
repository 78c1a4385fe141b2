import { describe, expect, it } from "vitest";
import { type Read, type StableReadOptions, verifyStable } from "./stable-reads.ts";

/** A clock that moves only when the verifier sleeps, and reads scripted by the time they are made. */
function scripted(
  readAt: (ms: number, installs: number) => Read,
  overrides: Partial<StableReadOptions> = {},
) {
  let clock = 0;
  let installs = 1;
  const reads: number[] = [];
  const options: StableReadOptions = {
    read: async () => {
      reads.push(clock);
      return readAt(clock, installs);
    },
    intervalMs: 200,
    settleMs: 3_000,
    reinstalls: 1,
    overallMs: 60_000,
    firstPauseMs: 250,
    reinstall: async () => {
      installs += 1;
    },
    sleep: async (ms) => {
      clock += ms;
    },
    now: () => clock,
    overallName: "timeouts.verify of prod",
    ...overrides,
  };
  return { options, reads, installs: () => installs };
}

const match = (state = "a"): Read => ({ differing: [], state });
const differ = (what = 'Controls (field "Owner" reads differently)'): Read => ({
  differing: [what],
  state: "b",
});

describe("stable reads of an install", () => {
  it("counts a part converged only after a second equal read one interval later", async () => {
    const run = scripted(() => match());
    await expect(verifyStable(run.options)).resolves.toEqual({
      verdict: "converged",
      passes: 1,
      reinstalledFor: [],
    });
    expect(run.reads).toEqual([0, 200]);
  });

  it("waits for a part that lands late, within settle", async () => {
    const run = scripted((ms) => (ms < 2_000 ? differ() : match()));
    await expect(verifyStable(run.options)).resolves.toMatchObject({ verdict: "converged", passes: 1 });
    expect(run.installs()).toBe(1);
  });

  it("does not take a match that reads differently one interval later", async () => {
    // Matches at first, is recalculated at 100 ms and stays so: the old single-match rule passed it.
    const run = scripted((ms, installs) => (ms < 100 || installs > 1 ? match(`${installs}`) : differ()), {
      reinstalls: 0,
    });
    await expect(verifyStable(run.options)).rejects.toMatchObject({
      code: "EGP_INSTALL_DIVERGED",
      passes: 1,
    });
    expect(run.reads.slice(0, 2)).toEqual([0, 200]);
  });

  it("installs again after settle and says so: converged after re-install", async () => {
    const run = scripted((_ms, installs) => (installs === 1 ? differ() : match()));
    await expect(verifyStable(run.options)).resolves.toEqual({
      verdict: "converged after re-install",
      passes: 2,
      reinstalledFor: [['Controls (field "Owner" reads differently)']],
    });
    expect(run.installs()).toBe(2);
  });

  it("gives up after the re-installs allowed, naming what differs", async () => {
    const run = scripted(() => differ(), { reinstalls: 2 });
    const verifying = verifyStable(run.options);
    await expect(verifying).rejects.toMatchObject({ code: "EGP_INSTALL_DIVERGED", passes: 3 });
    await expect(verifying).rejects.toThrow(
      'after 3 installs, each read for 3 s, these objects did not converge: Controls (field "Owner" reads differently)',
    );
    expect(run.installs()).toBe(3);
  });

  it("keeps timeouts.verify as the bound of the whole verification", async () => {
    const run = scripted(() => differ(), { overallMs: 1_000 });
    await expect(verifyStable(run.options)).rejects.toMatchObject({ code: "EGP_VERIFY_FAILED" });
    expect(run.installs()).toBe(1);
  });
});
