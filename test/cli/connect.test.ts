import { Writable } from "node:stream";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { connections } from "../../src/cli/connect.ts";
import { DEFAULT_LIMITS, DEFAULT_WAITS, type EnvironmentConfig, Secret } from "../../src/manifest/index.ts";
import { useSilentServer } from "../helpers/socket.ts";

/* The CLI's side of "no silent waits": the client's wait notices become warnings naming the environment. */

const silent = useSilentServer();

function config(): EnvironmentConfig {
  return {
    name: "prod",
    file: "environments/prod.yaml",
    source: { file: "environments/prod.yaml", line: 1, column: 1 },
    endpoint: { kind: "http", url: silent.url() },
    instance: "Default",
    auth: { username: "svc", domain: "", password: new Secret("Any#Pass2026"), scheme: "Platform" },
    tls: { insecure: false },
    roles: {},
    groups: {},
    domains: {},
    limits: { ...DEFAULT_LIMITS, requestsPerSecond: 0 },
    timeouts: { connectMs: 1_000, headersMs: 5_000, requestMs: 450, bodyMs: 5_000 },
    waits: DEFAULT_WAITS,
  };
}

describe("connections: wait notices", () => {
  it("a call still waiting is reported as 'still waiting for <env> (<what>, N s)' warnings", async () => {
    const logged: Array<{ level: number; msg: string; env: string }> = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logged.push(JSON.parse(String(chunk)));
        done();
      },
    });
    const open = connections({ logger: pino({ level: "warn" }, sink), waitNoticeMs: 100 });
    try {
      const { client } = await open.open(config());
      await expect(client.users.list()).rejects.toMatchObject({ code: "EGP_TIMEOUT" });
    } finally {
      await open.closeAll();
    }
    const waits = logged.filter((line) => line.msg.startsWith("still waiting"));
    expect(waits.length).toBeGreaterThanOrEqual(2);
    for (const wait of waits) {
      expect(wait).toMatchObject({ level: 40, env: "prod" });
      expect(wait.msg).toMatch(
        /^still waiting for prod \(POST \/platformapi\/core\/security\/login, \d+ s\)$/,
      );
    }
    expect(JSON.stringify(logged)).not.toContain("Any#Pass2026");
  });
});
