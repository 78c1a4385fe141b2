import { Writable } from "node:stream";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { createClient, type PlatformClient } from "../../src/index.ts";
import { optionsFor, useClientEmulator } from "./helpers/client.ts";

/*
 * With the logger at trace level and error paths exercised (a rejected login, a 401 and its
 * re-login, validation failures, a logout), no output holds a password or a session token.
 */

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, logger: pino({ level: "trace" }, stream) };
}

describe("no secrets in logs", () => {
  const { emulator } = useClientEmulator({ seed: "demo-dev" });

  it("keeps passwords and tokens out of every log line and every error", async () => {
    const { lines, logger } = capture();
    const tokens = new Set<string>();
    const collectTokens = () => {
      for (const token of emulator().store.sessions.keys()) tokens.add(token);
    };
    const errors: unknown[] = [];
    const failing = (promise: Promise<unknown>) =>
      promise.then(
        () => undefined,
        (error: unknown) => errors.push(error),
      );
    const secrets = ["Password1!", "Wr0ng#Secret!", "Cr3ate#Secret9", "Sh0rt!", "N3w#Passw0rdX"];

    const client: PlatformClient = createClient(optionsFor(emulator().url, { logger }));
    await client.metadata.version();
    collectTokens();
    emulator().faults.expireSessions();
    await client.users.list({ top: 1 });
    collectTokens();
    await failing(
      client.users.create({ User: { LastName: "NoFirstName" } as never, Password: "Cr3ate#Secret9" }),
    );
    await failing(client.users.changePassword({ UserId: 2, NewPassword: "Sh0rt!" }));
    const id = await client.users.create({
      User: { FirstName: "Log", LastName: "Tester", UserName: "logtester" },
      Password: "Cr3ate#Secret9",
    });
    await client.users.changePassword({ UserId: id, NewPassword: "N3w#Passw0rdX" });
    collectTokens();

    const wrong = createClient(optionsFor(emulator().url, { logger, password: "Wr0ng#Secret!" }));
    await failing(wrong.metadata.version());
    await client.close();
    await wrong.close();

    expect(errors).toHaveLength(3);
    expect(tokens.size).toBeGreaterThanOrEqual(2);
    const output = lines.join("");
    // The log really covers the requests and the failures, with the secret fields redacted.
    expect(output).toContain('"msg":"request"');
    expect(output).toContain("attempt failed");
    expect(output).toContain("[redacted]");
    const thrown = errors
      .map((error) => `${(error as Error).message}\n${(error as Error).stack}\n${JSON.stringify(error)}`)
      .join("\n");
    for (const secret of [...secrets, ...tokens]) {
      expect(output, `log holds ${secret.slice(0, 3)}…`).not.toContain(secret);
      expect(thrown, `error holds ${secret.slice(0, 3)}…`).not.toContain(secret);
    }
  });

  it("warns when TLS verification is off", () => {
    const { lines, logger } = capture();
    createClient(optionsFor("https://127.0.0.1:1", { logger, tls: { insecure: true } }));
    expect(lines.join("")).toMatch(/"level":40.*verification is off/);
  });
});
