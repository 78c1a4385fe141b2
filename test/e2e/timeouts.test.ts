import { describe, expect, it } from "vitest";
import { egp, environmentFile, lines } from "../helpers/cli.ts";
import { useSilentServer } from "../helpers/socket.ts";
import { testdir } from "../helpers/testdir.ts";

/* The environment file's timeouts reach the client: a host that never answers ends in one line. */

const silent = useSilentServer();

describe("egp against a host that accepts and never answers", () => {
  it("fails with EGP_TIMEOUT at the environment file's request deadline, in one line", async () => {
    const dir = await testdir({
      "environments/prod.yaml": environmentFile(silent.url(), ["timeouts: { headers: 300ms, request: 1s }"]),
    });
    const run = await egp(["plan", "--env", "prod"], {
      cwd: dir,
      env: { EGP_TEST_PASSWORD: "Any#Pass2026" },
    });
    expect(run.code).toBe(1);
    expect(lines(run.stderr), run.stderr).toEqual([
      expect.stringMatching(/^egp: EGP_TIMEOUT .*\/core\/security\/login: /),
    ]);
  });
});
