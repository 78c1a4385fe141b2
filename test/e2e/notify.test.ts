// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is egp.yaml text, not a template.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { egp, exampleTree } from "../helpers/cli.ts";
import { testdir } from "../helpers/testdir.ts";

/* egp.yaml's webhooks, posted to a receiver on 127.0.0.1. */

interface Received {
  path: string;
  body: Record<string, unknown>;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A receiver answering `status`; what it received, in order. */
async function receiver(status = 204): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk) => {
      text += chunk;
    });
    request.on("end", () => {
      received.push({ path: request.url ?? "", body: JSON.parse(text) });
      response.writeHead(status).end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

const HOOK_KEY = "T0000/B0000/hook-key-1234567890";
const PROJECT = "notify:\n  - url: ${EGP_HOOK_URL}\n    events: [applied, failed, refused, drift]\n";

async function repository(extra: Record<string, string> = {}): Promise<string> {
  return testdir({ ...exampleTree(), "egp.yaml": PROJECT, ...extra });
}

const run = (dir: string, args: string[], hook: string) =>
  egp([...args, "--dir", dir], {
    env: {
      EGP_HOOK_URL: `${hook}/${HOOK_KEY}`,
      EGP_ACTOR: "alice",
      GITHUB_SERVER_URL: "https://github.example",
      GITHUB_REPOSITORY: "acme/grc",
      GITHUB_RUN_ID: "77",
    },
  });

describe("notifications", () => {
  it("posts drift, then applied, with the actor, the run and a one-line text", async () => {
    const hook = await receiver();
    const dir = await repository();
    const drift = await run(dir, ["drift", "--env", "local-prod"], hook.url);
    expect(drift.code).toBe(2);
    const applied = await run(dir, ["apply", "--env", "local-prod", "--yes"], hook.url);
    expect(applied.code).toBe(0);

    expect(hook.received.map((r) => r.body.event)).toEqual(["drift", "applied"]);
    expect(hook.received[0]?.path).toBe(`/${HOOK_KEY}`);
    // drift sends the open findings, each by its fingerprint, without a value.
    const sent = (hook.received[0]?.body ?? {}) as {
      summary: string;
      findings: Array<Record<string, string>>;
    };
    expect(sent.summary).toMatch(/^\d+ open findings?$/);
    expect(sent.findings.length).toBe(Number(sent.summary.split(" ")[0]));
    for (const finding of sent.findings) {
      expect(Object.keys(finding).sort()).toEqual([
        "fingerprint",
        "kind",
        "object",
        "part",
        "remedy",
        "severity",
      ]);
      expect(finding.fingerprint).toMatch(/^[0-9a-f]{16}$/);
    }
    const body = hook.received[1]?.body ?? {};
    expect(Object.keys(body).sort()).toEqual(
      ["actor", "at", "environment", "event", "release", "runUrl", "summary", "text"].sort(),
    );
    expect(body).toMatchObject({
      event: "applied",
      environment: "local-prod",
      release: null,
      actor: "alice",
      runUrl: "https://github.example/acme/grc/actions/runs/77",
      summary: "2 added, 3 changed, 0 destroyed, 1 promoted; verified",
    });
    expect(body.text).toBe(
      "egp applied: local-prod: 2 added, 3 changed, 0 destroyed, 1 promoted; verified (by alice)",
    );
    // The hook's address is a secret: never printed.
    expect(`${drift.stdout}${drift.stderr}${applied.stdout}${applied.stderr}`).not.toContain("hook-key");
  });

  it("posts refused for a frozen apply", async () => {
    const hook = await receiver();
    const tree = exampleTree();
    const prod = `${tree["environments/local-prod.yaml"]}\nfreeze:\n  - { from: 2000-01-01T00:00:00Z, to: 2100-01-01T00:00:00Z, reason: audit }\n`;
    const dir = await repository({ "environments/local-prod.yaml": prod });
    const refused = await run(dir, ["apply", "--env", "local-prod", "--yes"], hook.url);
    expect(refused.code).toBe(1);
    expect(hook.received.map((r) => r.body.event)).toEqual(["refused"]);
    expect(String(hook.received[0]?.body.summary)).toMatch(
      /EGP_FROZEN local-prod is frozen until 2100-01-01 00:00 UTC: audit/,
    );
  });

  it("posts rejected with no environment, since a rejection belongs to the release alone", async () => {
    const hook = await receiver();
    const dir = await repository({
      "egp.yaml": "notify:\n  - url: ${EGP_HOOK_URL}\n    events: [rejected]\n",
    });
    expect(
      (await run(dir, ["release", "create", "--from", "local-dev", "--name", "r1"], hook.url)).code,
    ).toBe(0);
    const rejected = await run(
      dir,
      ["release", "reject", "r1", "--reason", "breaks single sign-on"],
      hook.url,
    );
    expect(rejected.code).toBe(0);
    expect(hook.received).toHaveLength(1);
    const body = hook.received[0]?.body ?? {};
    expect(body).toMatchObject({ event: "rejected", environment: null, release: "r1" });
    expect(body.text).toBe("egp rejected release r1: breaks single sign-on (by alice)");
  });

  it("a failing webhook is tried three times, reported, and never fails the apply", async () => {
    const hook = await receiver(500);
    const dir = await repository();
    const applied = await run(dir, ["apply", "--env", "local-prod", "--yes"], hook.url);
    expect(applied.code).toBe(0);
    expect(hook.received).toHaveLength(3);
    expect(applied.stdout).toContain(
      "Notification notify[0] failed after 3 tries (HTTP 500); the result above stands.",
    );
  });
});
