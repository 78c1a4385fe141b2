import { describe, expect, it } from "vitest";
import { LoginRefusedError } from "../../src/index.ts";
import { ADMIN, useClientEmulator } from "./helpers/client.ts";

/*
 * One failed login per environment per run (DESIGN §3): a refused login is never tried again by the
 * client, and every later call fails at once with the same error. Counted on the emulator's side,
 * by the account's failed-login counter.
 */

const WRONG = "Not#The2026Password";

describe("a refused login", () => {
  const { emulator, client } = useClientEmulator({ seed: "empty" });
  const admin = () => {
    const record = emulator().store.userByName(ADMIN.username);
    if (!record) throw new Error("no sysadmin");
    return record;
  };
  const reset = () => {
    admin().failedLogins = 0;
  };

  it("is tried once for many concurrent calls and never again for later ones", async () => {
    reset();
    const c = client({ password: WRONG, name: "prod" });
    const first = await Promise.allSettled(Array.from({ length: 5 }, () => c.users.list()));
    expect(admin().failedLogins).toBe(1);
    const errors = first.map((result) => (result.status === "rejected" ? result.reason : undefined));
    expect(errors[0]).toBeInstanceOf(LoginRefusedError);
    for (const error of errors) expect(error).toBe(errors[0]);
    await expect(c.users.list()).rejects.toBe(errors[0]);
    await expect(c.securityParameters.list()).rejects.toBe(errors[0]);
    await expect(c.security.login()).rejects.toBe(errors[0]);
    expect(admin().failedLogins).toBe(1);
    expect(c.stats().byRoute["POST /core/security/login"]).toBe(1);
  });

  it("says which environment and account, why, and that no further login was tried, without the password", async () => {
    reset();
    const c = client({ password: WRONG, name: "prod" });
    const failure = c.users.list();
    await expect(failure).rejects.toMatchObject({ code: "EGP_LOGIN_FAILED", status: 200 });
    await expect(failure).rejects.toThrow(
      /^prod: the login as sysadmin was refused \(ValidationMessageTemplates:LoginNotValid: .*not valid\.\); no further login was tried/,
    );
    await expect(failure).rejects.not.toThrow(WRONG);
  });

  it("after a 401 mid-run ends the session: the refused re-login is not tried again", async () => {
    reset();
    const c = client({ name: "prod" });
    await c.users.list();
    // The password changes under a running client, and its session ends.
    const record = admin();
    const saved = record.passwordHashes[0] ?? "";
    record.passwordHashes[0] = emulator().store.hashPassword(record.salt, "Changed#Meanwhile26");
    emulator().faults.expireSessions();
    try {
      const failures = await Promise.allSettled([
        c.users.list(),
        c.users.list(),
        c.securityParameters.list(),
      ]);
      for (const result of failures) expect(result.status).toBe("rejected");
      await expect(c.users.list()).rejects.toThrow(LoginRefusedError);
      expect(admin().failedLogins).toBe(1);
      expect(c.stats().byRoute["POST /core/security/login"]).toBe(2);
    } finally {
      record.passwordHashes[0] = saved;
    }
  });
});
