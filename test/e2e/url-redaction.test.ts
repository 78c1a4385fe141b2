// biome-ignore-all lint/suspicious/noTemplateCurlyInString: environment file text, not a template.

import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { createServer as createNetServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { selfSignedCertificate } from "../client/helpers/tls.ts";
import { egp, lines } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/*
 * A url from `${VAR}` is a secret (an internal host name, a port that says what runs there): every
 * message egp prints names it `[redacted]`, the connection and TLS errors and the trace-level
 * request log included.
 */

let closedUrl = "";
let tlsUrl = "";
let tlsServer: ReturnType<typeof createHttpsServer> | undefined;

beforeAll(async () => {
  // A port nothing listens on: taken, then let go.
  const probe = createNetServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  closedUrl = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  // A TLS server whose certificate no CA the environment names has signed.
  const certificate = selfSignedCertificate(await testdir({}));
  tlsServer = createHttpsServer({ key: certificate.key, cert: certificate.cert }, (_req, res) =>
    res.end("{}"),
  );
  await new Promise<void>((resolve) => tlsServer?.listen(0, "127.0.0.1", resolve));
  tlsUrl = `https://127.0.0.1:${(tlsServer.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => (tlsServer ? tlsServer.close(() => resolve()) : resolve())));

const repository = () =>
  testdir({
    "environments/prod.yaml":
      "url: ${EGP_TEST_URL}\ninstance: Default\nauth: { username: sysadmin, password: '${EGP_TEST_PASSWORD}' }\n",
  });

const run = (dir: string, url: string, args: string[]) =>
  egp([...args, "--dir", dir], { env: { EGP_TEST_URL: url, EGP_TEST_PASSWORD: "Password1!" } });

describe("a url from ${VAR}", () => {
  it.each([
    ["nothing listening", () => closedUrl, "EGP_CONNECTION"],
    ["a certificate no CA vouches for", () => tlsUrl, "EGP_TLS"],
  ])(
    "is [redacted] in every message when %s",
    async (_what, urlOf, code) => {
      const url = urlOf();
      const host = new URL(url).host;
      const dir = await repository();
      const plan = await run(dir, url, ["plan", "--env", "prod"]);
      expect(plan.code).toBe(1);
      expect(lines(plan.stderr)).toEqual([expect.stringContaining(`egp: ${code} prod ([redacted]): POST `)]);
      const status = await run(dir, url, ["status"]);
      expect(status.stdout).toContain(`prod: ${code} prod ([redacted]): POST `);
      const json = await run(dir, url, ["status", "--format", "json"]);
      const traced = await run(dir, url, ["plan", "--env", "prod", "--log-level", "trace"]);
      expect(traced.stderr).toContain('"msg":"request"');
      for (const output of [plan, status, json, traced])
        expect(output.stdout + output.stderr).not.toContain(host);
    },
    60_000,
  );
});
