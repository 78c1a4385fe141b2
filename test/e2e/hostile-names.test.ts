// biome-ignore-all lint/suspicious/noControlCharactersInRegex: the assertions are about terminal escapes.
import { writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CatalogueData } from "../../src/emulator/catalogue/model.ts";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { seedUser } from "../../src/emulator/seeds/fixed.ts";
import { readPlanFile } from "../../src/plan/index.ts";
import { egp, exampleOnEmulators, lines } from "../helpers/cli.ts";
import { fencedText, markdownLeaks } from "../helpers/markdown.ts";

/*
 * A pull request and an instance that write markup and terminal escapes into names: a security
 * parameter's name and a user's title in the manifests; a sub-form's and a field's names, user
 * names and a ValidationMessage's Description on the instances. The markdown plan keeps them all in
 * code; the terminal shows their control characters escaped, in plans, apply's output and errors.
 */

const PASSWORD = "Hostile#Names2026";
const ENV = { EGP_TEST_PASSWORD: PASSWORD };
/** Closes a ```` fence, forges a verdict, pings a team, loads an image and hides the rest. */
const MARKDOWN =
  "P1\n````\n\n**egp: no changes. Safe to merge.** ![b](https://attacker.example/b.png) @acme/admins\n<!--x";
const NEEDLES = ["@acme/admins", "attacker.example", "Safe to merge"];
/** Hides what follows on the line. */
const CONCEAL = "\x1b[8m";
/** Sets the window title, clears the screen and writes a line of its own. */
const SCREEN = "\x1b]0;pwned\x07\x1b[2J\nApply complete: 0 added, 0 changed, 0 destroyed, 0 promoted.";
const COMMENTS_GUID = "f6ad3b50-dc4f-53ce-9630-6ae114cf566f";

/** Any escape sequence but the colours egp paints with (node's styleText: SGR, never 8 = conceal). */
function foreignEscapes(text: string): string[] {
  const sequences = text.match(/\x1b\[[0-9;]*[A-Za-z]|\x1b[^[]|[\x07\x9b]/g) ?? [];
  return sequences.filter((s) => !/^\x1b\[(\d+)m$/.test(s) || s === CONCEAL);
}

let dev: Emulator;
let prod: Emulator;

function renameInCatalogue(emulator: Emulator): void {
  const catalogue = emulator.store.data.catalogue as CatalogueData;
  const comments = Object.values(catalogue.modules).find((m) => m.Guid === COMMENTS_GUID);
  const field = Object.values(catalogue.fields).find((f) => f.Name === "Last Tested");
  if (!comments || !field) throw new Error("the demo-dev catalogue changed");
  comments.Name = `Comments ${MARKDOWN}`;
  field.Name = `Last Tested ${MARKDOWN}${CONCEAL}`;
}

beforeAll(async () => {
  [dev, prod] = await Promise.all([
    startEmulator({ port: 0, seed: "demo-dev", adminPassword: PASSWORD }),
    startEmulator({ port: 0, seed: "demo-prod", adminPassword: PASSWORD }),
  ]);
  renameInCatalogue(dev);
  for (let i = 0; i < 4; i++)
    seedUser(prod.store, { FirstName: "Gone", LastName: `${i}`, UserName: `gone${i} ${MARKDOWN}` }, PASSWORD);
  seedUser(prod.store, { FirstName: "Mal", LastName: "Lory", UserName: `mallory${CONCEAL}` }, PASSWORD);
  seedUser(prod.store, { FirstName: "Eve", LastName: "Screen", UserName: `eve${SCREEN}` }, PASSWORD);
});

afterAll(async () => {
  await Promise.all([dev?.close(), prod?.close()]);
});

/** YAML text of a string: JSON's quoting is YAML's double-quoted style. */
const yaml = (text: string) => JSON.stringify(text);

/** The example on the two emulators, with the hostile documents and the prune policy given. */
async function repository(prune: "delete" | "deactivate", urls = { dev: dev.url, prod: prod.url }) {
  const dir = await exampleOnEmulators(urls);
  await writeFile(join(dir, "manifests/prune-policy.yaml"), `kind: PrunePolicy\nusers: ${prune}\n`);
  await writeFile(
    join(dir, "manifests/hostile.yaml"),
    [
      "kind: SecurityParameter",
      `name: ${yaml(MARKDOWN)}`,
      "minPasswordLength: 12",
      "---",
      "kind: User",
      "userName: hostile",
      "firstName: Hos",
      "lastName: Tile",
      `title: ${yaml(`${MARKDOWN} ${CONCEAL}${SCREEN}`)}`,
      "status: active",
      "",
    ].join("\n"),
  );
  return dir;
}

describe("a pull request's plan comment", () => {
  it("keeps names from the manifests and the instances inside code, and hides nothing", async () => {
    const dir = await repository("delete");
    expect((await egp(["validate"], { cwd: dir, env: ENV })).code).toBe(0);
    const [markdown, json] = await Promise.all([
      egp(["plan", "--env", "local-prod", "--format", "markdown"], { cwd: dir, env: ENV }),
      egp(["plan", "--env", "local-prod", "--format", "json"], { cwd: dir, env: ENV }),
    ]);
    expect(markdown.code, markdown.stderr).toBe(0);
    expect(markdownLeaks(markdown.stdout, NEEDLES)).toEqual([]);
    // Every delete can be read: no fence closed early, no comment hiding the rest.
    const deletes = readPlanFile(json.stdout).changes.filter((c) => c.action === "delete").length;
    expect(deletes).toBeGreaterThanOrEqual(6);
    expect(fencedText(markdown.stdout).split("will be DELETED").length - 1).toBe(deletes);
    // The instance's names are there, in code, their line breaks escaped.
    expect(markdown.stdout).toContain("Comments P1\\n````\\n\\n**egp: no changes.");
    expect(markdown.stdout).toContain('field "Last Tested P1\\n````');
    expect(markdown.stdout).toContain('+ SecurityParameter "P1\\n````\\n\\n**egp');
  });
});

describe("a terminal", () => {
  it("gets the plan's names with their control characters escaped, and egp's colours", async () => {
    const dir = await repository("delete");
    const run = await egp(["plan", "--env", "local-prod"], { cwd: dir, env: { ...ENV, FORCE_COLOR: "1" } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/\x1b\[31m {2}# User "mallory\\x1b\[8m" will be DELETED\x1b\[39m/);
    expect(foreignEscapes(run.stdout)).toEqual([]);
    const plain = run.stdout.replace(/\x1b\[\d+m/g, "");
    expect(plain).toContain('# User "eve\\x1b]0;pwned\\x07\\x1b[2J\\nApply complete: 0 added');
    expect(lines(plain).some((line) => line.startsWith("Apply complete"))).toBe(false);
  });

  it("gets apply's plan, steps and failures with the instance's words escaped", async () => {
    // A hostile prod: it refuses to create users with a Description that writes to the terminal.
    const proxy = await hostileProxy(prod.url, (request) =>
      request.method === "POST" &&
      !request.headers["x-http-method-override"] &&
      /\/core\/system\/user$/.test(request.url ?? "")
        ? refusal(`no${SCREEN}`)
        : undefined,
    );
    try {
      const dir = await repository("deactivate", { dev: dev.url, prod: proxy.url });
      const run = await egp(["apply", "--env", "local-prod", "--yes"], { cwd: dir, env: ENV });
      expect(run.code, run.stderr).toBe(1);
      const output = run.stdout + run.stderr;
      expect(output).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
      expect(run.stdout).toContain('# User "mallory\\x1b[8m" will be DEACTIVATED');
      expect(run.stdout).toMatch(/User\/mallory\\x1b\[8m#deactivate \(local-prod\): skipped/);
      expect(run.stdout).toMatch(
        /User\/hostile#create \(local-prod\): FAILED: .*no\\x1b\]0;pwned\\x07\\x1b\[2J\\nApply/,
      );
      expect(lines(output).some((line) => line.startsWith("Apply complete"))).toBe(false);
    } finally {
      await proxy.close();
    }
  });

  it("gets an instance's refusal of the login as one line, escaped", async () => {
    const proxy = await hostileProxy(prod.url, (request) =>
      /\/core\/security\/login$/.test(request.url ?? "") ? refusal(`bad${CONCEAL}${SCREEN}`) : undefined,
    );
    try {
      const dir = await repository("delete", { dev: dev.url, prod: proxy.url });
      const run = await egp(["plan", "--env", "local-prod"], { cwd: dir, env: ENV });
      expect(run.code).toBe(1);
      expect(lines(run.stderr), run.stderr).toHaveLength(1);
      expect(run.stderr).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
      expect(run.stderr).toMatch(
        /^egp: EGP_LOGIN_FAILED .*bad\\x1b\[8m\\x1b\]0;pwned\\x07\\x1b\[2J\\nApply complete/,
      );
    } finally {
      await proxy.close();
    }
  });
});

/** The envelope of a refusal, as instances write it, with `description`. */
function refusal(description: string) {
  return {
    IsSuccessful: false,
    RequestedObject: null,
    ValidationMessages: [
      {
        Reason: "Validation",
        Severity: 3,
        MessageKey: "ValidationMessageTemplates:Refused",
        Description: description,
        Location: -1,
        ErroredValue: null,
        Validator: null,
        XmlData: null,
        ResourcedMessage: null,
      },
    ],
  };
}

/** An instance in front of `target`: answers what `answer` returns, and passes the rest through. */
async function hostileProxy(
  target: string,
  answer: (request: IncomingMessage) => unknown,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const hostile = answer(request);
    if (hostile !== undefined) {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(hostile));
      return;
    }
    const headers = Object.entries(request.headers).filter(
      (entry): entry is [string, string] =>
        typeof entry[1] === "string" && !["host", "connection", "content-length"].includes(entry[0]),
    );
    const body = chunks.length ? Buffer.concat(chunks) : undefined;
    const answered = await fetch(`${target}${request.url}`, { method: request.method, headers, body });
    const kept = [...answered.headers].filter(
      ([name]) => !["content-length", "content-encoding", "transfer-encoding", "connection"].includes(name),
    );
    response.writeHead(answered.status, Object.fromEntries(kept));
    response.end(Buffer.from(await answered.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
