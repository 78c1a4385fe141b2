import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startEmulator } from "../../src/emulator/index.ts";
import { manualClock, Raw, useEmulator } from "../helpers/raw.ts";

describe("sessions", () => {
  const clock = manualClock();
  const { raw, emulator } = useEmulator({ seed: "demo-dev", clock: clock.now });

  it("login returns a 32 upper-case hex token", async () => {
    const response = await raw().login();
    expect(response.status).toBe(200);
    expect(response.body.IsSuccessful).toBe(true);
    expect(response.body.RequestedObject.SessionToken).toMatch(/^[0-9A-F]{32}$/);
  });

  it("bad credentials answer 200 with IsSuccessful false", async () => {
    const response = await raw().login("sysadmin", "wrong");
    expect(response.status).toBe(200);
    expect(response.body.IsSuccessful).toBe(false);
    expect(response.body.ValidationMessages[0].MessageKey).toBe("ValidationMessageTemplates:LoginNotValid");
    const wrongInstance = await raw().login("sysadmin", "Password1!", "Elsewhere");
    expect(wrongInstance.body.IsSuccessful).toBe(false);
  });

  it("a missing, malformed or unknown token is 401 with an envelope", async () => {
    const missing = await raw().read("/core/system/applicationinfo/version", "");
    expect(missing.status).toBe(401);
    expect(missing.body.IsSuccessful).toBe(false);
    const unknown = await raw().read("/core/system/applicationinfo/version", "0".repeat(32));
    expect(unknown.status).toBe(401);
    const wrongScheme = await raw().call("/core/system/applicationinfo/version", {
      headers: { authorization: `Bearer session-id="${await raw().token()}"` },
    });
    expect(wrongScheme.status).toBe(401);
  });

  it("the token may be quoted or unquoted", async () => {
    const token = await raw().token();
    const unquoted = await raw().call("/core/system/applicationinfo/version", {
      headers: { authorization: `Platform session-id=${token}` },
    });
    expect(unquoted.status).toBe(200);
  });

  it("logout ends the session and answers true, also for ended and unknown tokens", async () => {
    const token = await raw().token();
    const first = await raw().call("/core/security/logout", {
      method: "POST",
      token,
      body: { Value: token },
    });
    expect(first.status).toBe(200);
    expect(first.body.RequestedObject).toBe(true);
    expect((await raw().read("/core/system/applicationinfo/version", token)).status).toBe(401);
    const again = await raw().call("/core/security/logout", {
      method: "POST",
      token,
      body: { Value: token },
    });
    expect(again.body.RequestedObject).toBe(true);
    const unknown = await raw().call("/core/security/logout", {
      method: "POST",
      body: { Value: "nonsense" },
    });
    expect(unknown.body.RequestedObject).toBe(true);
  });

  it("ending another user's session needs the administrator role", async () => {
    const adminToken = await raw().token();
    const userToken = await raw().token("anguyen", "Welcome#2026");
    const otherUser = await raw().token("bokafor", "Welcome#2026");
    const denied = await raw().call("/core/security/logout", {
      method: "POST",
      token: otherUser,
      body: { Value: userToken },
    });
    expect(denied.status).toBe(403);
    expect((await raw().read("/core/system/applicationinfo/version", userToken)).status).toBe(200);
    const allowed = await raw().call("/core/security/logout", {
      method: "POST",
      token: adminToken,
      body: { Value: userToken },
    });
    expect(allowed.body.RequestedObject).toBe(true);
    expect((await raw().read("/core/system/applicationinfo/version", userToken)).status).toBe(401);
  });

  it("a session idles out after the user's SessionTimeout", async () => {
    // anguyen is governed by General User Parameter: 30 minutes.
    const token = await raw().token("anguyen", "Welcome#2026");
    clock.advance(29 * 60_000);
    expect((await raw().read("/core/system/applicationinfo/version", token)).status).toBe(200);
    clock.advance(29 * 60_000);
    expect((await raw().read("/core/system/applicationinfo/version", token)).status).toBe(200);
    clock.advance(31 * 60_000);
    const expired = await raw().read("/core/system/applicationinfo/version", token);
    expect(expired.status).toBe(401);
    expect(expired.body.ValidationMessages[0].MessageKey).toBe("SessionExpired");
  });

  it("failed logins lock the account for the LockoutPeriod", async () => {
    // General User Parameter: 3 attempts, 15 minutes.
    for (let i = 0; i < 3; i++) expect((await raw().login("bokafor", "nope")).body.IsSuccessful).toBe(false);
    const locked = await raw().login("bokafor", "Welcome#2026");
    expect(locked.body.IsSuccessful).toBe(false);
    expect(locked.body.ValidationMessages[0].MessageKey).toBe("AccountLocked");
    expect(emulator().store.userByName("bokafor")?.user.AccountStatus).toBe(3);
    clock.advance(16 * 60_000);
    expect((await raw().login("bokafor", "Welcome#2026")).body.IsSuccessful).toBe(true);
    expect(emulator().store.userByName("bokafor")?.user.AccountStatus).toBe(1);
  });

  it("a forced expiry from the fault injector ends every session", async () => {
    const token = await raw().token();
    emulator().faults.expireSessions();
    expect((await raw().read("/core/system/applicationinfo/version", token)).status).toBe(401);
  });
});

describe("verb override and representation", () => {
  const { raw } = useEmulator();

  it("a read answers a plain GET and a POST with the override", async () => {
    const token = await raw().token();
    const get = await raw().call("/core/system/applicationinfo/version", { token });
    expect(get.status).toBe(200);
    expect(get.body.RequestedObject.Version).toBe("6.14.0");
    const post = await raw().read("/core/system/applicationinfo/version", token, {
      headers: { "content-type": "application/json" },
    });
    expect(post.status).toBe(200);
  });

  it("a POST read without the override is 405 with an envelope", async () => {
    const token = await raw().token();
    const response = await raw().call("/core/system/applicationinfo/version", {
      method: "POST",
      token,
      body: {},
    });
    expect(response.status).toBe(405);
    expect(response.body.IsSuccessful).toBe(false);
    expect(response.body.ValidationMessages[0].MessageKey).toBe("MethodNotAllowed");
  });

  it("a body on a real GET is rejected", async () => {
    const token = await raw().token();
    const response = await raw().call("/core/system/applicationinfo/version", { token, rawBody: "{}" });
    expect(response.status).toBe(400);
    expect(response.body.ValidationMessages[0].MessageKey).toBe("BodyNotSupportedOnGet");
  });

  it("answers XML when Accept prefers it, and JSON for browser-style lists", async () => {
    const token = await raw().token();
    const xml = await raw().call("/core/system/applicationinfo/version", {
      token,
      headers: { accept: "application/xml;q=0.9, application/json;q=0.5" },
    });
    expect(xml.headers["content-type"]).toMatch(/application\/xml/);
    expect(xml.text).toContain("<Version>6.14.0</Version>");
    const json = await raw().call("/core/system/applicationinfo/version", {
      token,
      headers: { accept: "application/json ,text/plain, */*;q=0.8,application/xml" },
    });
    expect(json.headers["content-type"]).toMatch(/application\/json/);
    expect(json.body.IsSuccessful).toBe(true);
  });

  it("malformed JSON is a 400 envelope and the server keeps answering", async () => {
    const response = await raw().call("/core/security/login", { method: "POST", rawBody: "{not json" });
    expect(response.status).toBe(400);
    expect(response.body.ValidationMessages[0].MessageKey).toBe("MalformedJson");
    expect((await raw().login()).status).toBe(200);
  });

  it("an unknown path is a 404 envelope", async () => {
    const response = await raw().call("/core/system/nothing-here");
    expect(response.status).toBe(404);
    expect(response.body.IsSuccessful).toBe(false);
  });
});

describe("releases and prefixes", () => {
  it("release 6.14 without integrations serves /platformapi and not /api for platform calls", async () => {
    const emulator = await startEmulator({ release: "6.14.0", integrations: false });
    try {
      const raw = new Raw(emulator.url);
      const token = await raw.token();
      expect((await raw.read("/core/system/applicationinfo/version", token)).status).toBe(200);
      expect((await raw.read("/core/system/applicationinfo/version", token, { prefix: "/api" })).status).toBe(
        404,
      );
    } finally {
      await emulator.close();
    }
  });

  it("release 6.4 serves /api only", async () => {
    const emulator = await startEmulator({ release: "6.4.1" });
    try {
      const raw = new Raw(emulator.url, "/api");
      const token = await raw.token();
      const version = await raw.read("/core/system/applicationinfo/version", token);
      expect(version.body.RequestedObject.Version).toBe("6.4.1");
      expect(
        (await raw.read("/core/system/applicationinfo/version", token, { prefix: "/platformapi" })).status,
      ).toBe(404);
    } finally {
      await emulator.close();
    }
  });

  it("the scheme word is settable", async () => {
    const emulator = await startEmulator({ scheme: "Archer" });
    try {
      const raw = new Raw(emulator.url);
      const token = await raw.token();
      const platform = await raw.read("/core/system/applicationinfo/version", token);
      expect(platform.status).toBe(401);
      const own = await raw.call("/core/system/applicationinfo/version", {
        headers: { authorization: `Archer session-id="${token}"` },
      });
      expect(own.status).toBe(200);
    } finally {
      await emulator.close();
    }
  });
});

describe("persistence", () => {
  it("--data keeps state across a restart, but not sessions", async () => {
    const dataFile = join(mkdtempSync(join(tmpdir(), "egp-test-")), "state.json");
    const first = await startEmulator({ seed: "demo-dev", dataFile });
    const raw = new Raw(first.url);
    const token = await raw.token();
    for (let i = 0; i < 3; i++) await raw.login("bokafor", "nope");
    await first.close();
    // The state is an SQLite database (docs/emulator.md, "--data").
    expect(readFileSync(dataFile).subarray(0, 16).toString("latin1")).toBe("SQLite format 3\0");

    const second = await startEmulator({ seed: "empty", dataFile });
    try {
      expect(second.store.data.seed).toBe("demo-dev");
      expect(second.store.userByName("bokafor")?.user.AccountStatus).toBe(3);
      const again = new Raw(second.url);
      expect((await again.read("/core/system/applicationinfo/version", token)).status).toBe(401);
    } finally {
      await second.close();
    }
  });
});
