import { describe, expect, it } from "vitest";
import { startEmulator } from "../../src/emulator/index.ts";
import { AuthError, createClient } from "../../src/index.ts";
import { optionsFor, useClientEmulator } from "./helpers/client.ts";

describe("sessions", () => {
  const { emulator, client } = useClientEmulator({ seed: "demo-dev" });

  it("sends nothing until the first call, then logs in once for many concurrent calls", async () => {
    const c = client();
    expect(c.stats().requests).toBe(0);
    const versions = await Promise.all(Array.from({ length: 6 }, () => c.metadata.version()));
    expect(versions.map((v) => v.Version)).toEqual(Array(6).fill("6.14.0"));
    const stats = c.stats();
    expect(stats.logins).toBe(1);
    expect(stats.byRoute["POST /core/security/login"]).toBe(1);
    expect(stats.byRoute["POST /core/system/applicationinfo/version"]).toBe(6);
  });

  it("heals a session expiry with one re-login and one retry of the call", async () => {
    const c = client();
    await c.metadata.version();
    emulator().faults.expireSessions();
    await expect(c.metadata.version()).resolves.toMatchObject({ Version: "6.14.0" });
    const stats = c.stats();
    expect(stats.logins).toBe(2);
    // first read, the refused read, its retry
    expect(stats.byRoute["POST /core/system/applicationinfo/version"]).toBe(3);
  });

  it("shares one re-login among concurrent calls that meet the expiry", async () => {
    const c = client();
    await c.metadata.version();
    emulator().faults.expireSessions();
    await Promise.all(Array.from({ length: 5 }, () => c.metadata.version()));
    expect(c.stats().logins).toBe(2);
  });

  it("gives up with an AuthError when the call is refused again after the re-login", async () => {
    const c = client();
    await c.metadata.version();
    emulator().faults.script({ path: "applicationinfo/version", times: 2, action: { status: 401 } });
    const failure = c.metadata.version();
    await expect(failure).rejects.toThrow(AuthError);
    await expect(failure).rejects.toMatchObject({ code: "EGP_UNAUTHORIZED", status: 401 });
    expect(c.stats().logins).toBe(2);
  });

  it("reports rejected credentials (HTTP 200, IsSuccessful false) as EGP_LOGIN_FAILED", async () => {
    const c = client({ username: "anguyen", password: "Wrong#Password9" });
    const failure = c.metadata.version();
    await expect(failure).rejects.toThrow(AuthError);
    await expect(failure).rejects.toMatchObject({ code: "EGP_LOGIN_FAILED", status: 200 });
    await expect(failure).rejects.not.toThrow(/Wrong#Password9/);
  });

  it("close() logs out, and returns again and again", async () => {
    const c = client();
    await c.metadata.version();
    const before = emulator().store.sessions.size;
    await c.close();
    expect(emulator().store.sessions.size).toBe(before - 1);
    expect(c.stats().byRoute["POST /core/security/logout"]).toBe(1);
    await expect(c.close()).resolves.toBeUndefined();
  });

  it("a call after close() fails at once, without retries", async () => {
    const c = client();
    await c.metadata.version();
    await c.close();
    const before = c.stats().requests;
    await expect(c.metadata.version()).rejects.toThrow(/the client is closed/);
    expect(c.stats().requests).toBe(before);
  });

  it("close() returns when the session has already ended", async () => {
    const c = client();
    await c.metadata.version();
    emulator().faults.expireSessions();
    await expect(c.close()).resolves.toBeUndefined();
  });

  it("close() sends nothing when no session was opened", async () => {
    const c = client();
    await c.close();
    expect(c.stats().requests).toBe(0);
  });

  it("explicit login replaces the session; logout of the own session ends it", async () => {
    const c = client();
    const { SessionToken } = await c.security.login();
    expect(SessionToken).toMatch(/^[0-9A-F]{32}$/);
    expect(emulator().store.sessions.has(SessionToken)).toBe(true);
    await expect(c.security.logout()).resolves.toBe(true);
    expect(emulator().store.sessions.has(SessionToken)).toBe(false);
    // The next call logs in again by itself.
    await expect(c.metadata.version()).resolves.toMatchObject({ Version: "6.14.0" });
  });

  it("logout of another user's session uses the client's own session as the credential", async () => {
    const admin = client();
    const user = client({ username: "anguyen", password: "Welcome#2026" });
    const { SessionToken: userToken } = await user.security.login();
    await expect(admin.security.logout(userToken)).resolves.toBe(true);
    expect(emulator().store.sessions.has(userToken)).toBe(false);
  });
});

describe("close() against a server that is gone", () => {
  it("still returns", async () => {
    const emulator = await startEmulator({ port: 0 });
    const c = createClient(optionsFor(emulator.url, { retry: { retries: 0 } }));
    await c.metadata.version();
    await emulator.close();
    await expect(c.close()).resolves.toBeUndefined();
  });
});
