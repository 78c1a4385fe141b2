import { describe, expect, it } from "vitest";
import { OutcomeUnknownError, TransientError } from "../../src/index.ts";
import { recordingSleep, useClientEmulator } from "./helpers/client.ts";

/*
 * Scripted faults from the emulator, keyed on the request count: what the client retries, what it
 * does not, and what it reports when it cannot know.
 */

const newUser = (userName: string) => ({
  User: { FirstName: "Fault", LastName: "Tester", UserName: userName, AccountStatus: 1 },
  Password: "Str0ng#Pass1",
});

describe("scripted faults", () => {
  const { emulator, client } = useClientEmulator({ seed: "demo-dev" });
  const countOf = (userName: string) =>
    emulator()
      .store.allUsers()
      .filter((record) => record.user.UserName === userName).length;

  it("503 twice with Retry-After, then success: the read succeeds after waiting what Retry-After asked", async () => {
    const recorder = recordingSleep();
    const c = client({ sleep: recorder.sleep });
    await c.metadata.version();
    emulator().faults.script({
      method: "POST",
      path: "/core/system/user?",
      times: 2,
      action: { status: 503, retryAfter: 1 },
    });
    const users = await c.users.list({ top: 2 });
    expect(users.map((u) => u.UserName)).toEqual(["sysadmin", "anguyen"]);
    expect(recorder.delays).toEqual([1000, 1000]);
    expect(c.stats().retries).toBe(2);
    expect(c.stats().byRoute["POST /core/system/user"]).toBe(3);
  });

  it("429 on a read is retried as well", async () => {
    const recorder = recordingSleep();
    const c = client({ sleep: recorder.sleep });
    emulator().faults.script({
      path: "applicationinfo/version",
      times: 1,
      action: { status: 429, retryAfter: 2 },
    });
    await expect(c.metadata.version()).resolves.toMatchObject({ Version: "6.14.0" });
    expect(recorder.delays).toEqual([2000]);
  });

  it("without Retry-After the waits are bounded backoff with jitter", async () => {
    const recorder = recordingSleep();
    const c = client({
      sleep: recorder.sleep,
      random: () => 0.5,
      retry: { baseDelayMs: 100, maxDelayMs: 300 },
    });
    await c.metadata.version();
    emulator().faults.script({ path: "applicationinfo/version", times: 4, action: { status: 502 } });
    await c.metadata.version();
    expect(recorder.delays).toEqual([50, 100, 150, 150]);
  });

  it("when the retries run out, the last error is raised", async () => {
    const recorder = recordingSleep();
    const c = client({ sleep: recorder.sleep, retry: { retries: 2 } });
    await c.metadata.version();
    emulator().faults.script({
      path: "applicationinfo/version",
      times: 5,
      action: { status: 503, retryAfter: 0 },
    });
    const failure = c.metadata.version();
    await expect(failure).rejects.toThrow(TransientError);
    await expect(failure).rejects.toMatchObject({ code: "EGP_UNAVAILABLE", status: 503 });
    expect(recorder.delays).toEqual([0, 0]);
    emulator().faults.clear();
  });

  it("a read whose connection is reset is retried", async () => {
    const recorder = recordingSleep();
    const c = client({ sleep: recorder.sleep });
    await c.metadata.version();
    emulator().faults.script({ path: "applicationinfo/version", times: 1, action: { reset: true } });
    await expect(c.metadata.version()).resolves.toMatchObject({ Version: "6.14.0" });
    expect(recorder.delays).toHaveLength(1);
  });

  it("a timed-out create raises OutcomeUnknownError and is not repeated", async () => {
    const recorder = recordingSleep();
    const c = client({ sleep: recorder.sleep, timeouts: { headersMs: 300 } });
    await c.metadata.version();
    emulator().faults.script({
      method: "POST",
      path: "/core/system/user",
      times: 1,
      action: { delayMs: 1200 },
    });
    const seenBefore = emulator().faults.stats.requests;
    const failure = c.users.create(newUser("timedout"));
    await expect(failure).rejects.toThrow(OutcomeUnknownError);
    await expect(failure).rejects.toMatchObject({ code: "EGP_OUTCOME_UNKNOWN" });
    await expect(failure).rejects.toHaveProperty("cause.code", "EGP_TIMEOUT");
    expect(c.stats().byRoute["POST /core/system/user"]).toBe(1);
    expect(recorder.delays).toEqual([]);
    // The server saw one request, and nothing more arrives once the delayed one is over.
    await emulator().faults.settled();
    await new Promise((resolve) => setImmediate(resolve));
    expect(emulator().faults.stats.requests - seenBefore).toBe(1);
    expect(countOf("timedout")).toBeLessThanOrEqual(1);
  });

  it("a create whose answer is lost after the change raises OutcomeUnknownError; the user exists once", async () => {
    const c = client({ sleep: recordingSleep().sleep });
    await c.metadata.version();
    emulator().faults.script({
      method: "POST",
      path: "/core/system/user",
      times: 1,
      action: { reset: true, after: true },
    });
    await expect(c.users.create(newUser("resetafter"))).rejects.toThrow(OutcomeUnknownError);
    expect(c.stats().byRoute["POST /core/system/user"]).toBe(1);
    expect(countOf("resetafter")).toBe(1);
  });

  it("a create answered 503 is not retried either", async () => {
    const recorder = recordingSleep();
    const c = client({ sleep: recorder.sleep });
    await c.metadata.version();
    emulator().faults.script({
      method: "POST",
      path: "/core/system/user",
      times: 1,
      action: { status: 503, retryAfter: 1 },
    });
    const failure = c.users.create(newUser("refused503"));
    await expect(failure).rejects.toThrow(OutcomeUnknownError);
    await expect(failure).rejects.toHaveProperty("cause.status", 503);
    expect(recorder.delays).toEqual([]);
    expect(countOf("refused503")).toBe(0);
  });

  it("a create after a session expiry is sent again once, since the 401 is a clear refusal", async () => {
    const c = client();
    await c.metadata.version();
    emulator().faults.expireSessions();
    const id = await c.users.create(newUser("afterexpiry"));
    expect(emulator().store.user(id)?.user.UserName).toBe("afterexpiry");
    expect(countOf("afterexpiry")).toBe(1);
    expect(c.stats().logins).toBe(2);
  });
});
