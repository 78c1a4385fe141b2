import { createServer, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { egp, environmentFile, lines } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/* The environment file's timeouts reach the client: a host that never answers ends in one line. */

const sockets = new Set<Socket>();
const server = createServer((socket) => {
  sockets.add(socket);
  socket.on("error", () => undefined);
});
let url = "";

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  url = `http://127.0.0.1:${address.port}`;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});

describe("egp against a host that accepts and never answers", () => {
  it("fails with EGP_TIMEOUT at the environment file's request deadline, in one line", async () => {
    const dir = await testdir({
      "environments/prod.yaml": environmentFile(url, ["timeouts: { headers: 300ms, request: 1s }"]),
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
