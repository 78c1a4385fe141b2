// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is manifest text, not a template.
import { describe, expect, it } from "vitest";
import { EMBEDDED_DEFAULT_PASSWORD } from "../../src/manifest/index.ts";
import {
  environmentDoc,
  errorsOf,
  lines,
  realEnvironmentDoc,
  statesOf,
  VARIABLES,
  validate,
} from "./builders.ts";

function onlyEnvironment(
  doc: Record<string, unknown> | string,
  variables: Record<string, string> = VARIABLES,
) {
  const [state] = statesOf({ environments: { prod: doc } }, { variables });
  if (!state) throw new Error("no state");
  return state.environment;
}

describe("environment files: embedded emulators", () => {
  it("defaults to the emulator's administrator, instance Default and the standard limits", () => {
    const environment = onlyEnvironment(environmentDoc({ url: "embedded:demo-dev" }), {});
    expect(environment.endpoint).toEqual({ kind: "embedded", seed: "demo-dev" });
    expect(environment.instance).toBe("Default");
    expect(environment.auth.username).toBe("sysadmin");
    expect(environment.auth.password.reveal()).toBe(EMBEDDED_DEFAULT_PASSWORD);
    expect(environment.auth.scheme).toBe("Platform");
    expect(environment.limits).toEqual({
      concurrency: 4,
      requestsPerSecond: 10,
      packageBytes: 2 * 1024 ** 3,
    });
  });

  it("takes the emulator password from EGP_EMULATOR_PASSWORD when set", () => {
    const environment = onlyEnvironment(environmentDoc(), { EGP_EMULATOR_PASSWORD: "Other#Pass1" });
    expect(environment.auth.password.reveal()).toBe("Other#Pass1");
  });

  it("resolves ?data= against the repository root", () => {
    const environment = onlyEnvironment(environmentDoc({ url: "embedded:demo-prod?data=.egp/prod.json" }));
    expect(environment.endpoint).toEqual({
      kind: "embedded",
      seed: "demo-prod",
      dataFile: "/repo/.egp/prod.json",
    });
  });

  it("keeps ?data= inside the repository's .egp/ folder, out of egp's own files", () => {
    const refused = [
      "/any/path.json",
      "../outside.json",
      "secret.env",
      ".egp/../secret.env",
      ".egp",
      ".egp/",
      ".egp/journal/dev/0123456789abcdef.jsonl",
      ".egp/locks/dev.lock",
      ".egp/artifacts/x.zip",
      ".egp/releases/dev/r.json",
      ".egp/.gitignore",
    ];
    const environments = Object.fromEntries(
      refused.map((data, index) => [`e${index}`, environmentDoc({ url: `embedded:empty?data=${data}` })]),
    );
    const errors = lines(errorsOf({ environments }));
    expect(errors).toHaveLength(refused.length);
    for (const error of errors)
      expect(error).toMatch(
        /^environments\/e\d+\.yaml:1:6 url: data= must name a file inside the repository's \.egp\/ folder \(for example \.egp\/dev\.json\), not one of egp's own folders$/,
      );
    for (const data of [".egp/dev.json", ".egp/emulators/dev.json", "./.egp/x/../dev.json"])
      expect(onlyEnvironment(environmentDoc({ url: `embedded:empty?data=${data}` })).endpoint).toMatchObject({
        dataFile: data.includes("emulators") ? "/repo/.egp/emulators/dev.json" : "/repo/.egp/dev.json",
      });
  });

  it("accepts the scale seed and refuses unknown seeds and options", () => {
    expect(onlyEnvironment(environmentDoc({ url: "embedded:scale:users=10,apps=2" })).endpoint).toMatchObject(
      {
        seed: "scale:users=10,apps=2",
      },
    );
    const errors = lines(
      errorsOf({
        environments: {
          a: environmentDoc({ url: "embedded:demo-test" }),
          b: environmentDoc({ url: "embedded:empty?data=.egp/x.json&port=9" }),
        },
      }),
    );
    expect(errors).toEqual([
      expect.stringMatching(
        /^environments\/a\.yaml:1:6 url: unknown emulator seed; expected empty, demo-dev/,
      ),
      'environments/b.yaml:1:6 url: unknown embedded option "port"; the options are data=<file>, profile=foreign and faults=<spec>',
    ]);
  });

  it("takes profile=foreign, alone or with data=, and refuses another profile", () => {
    expect(onlyEnvironment(environmentDoc({ url: "embedded:demo-dev?profile=foreign" })).endpoint).toEqual({
      kind: "embedded",
      seed: "demo-dev",
      profile: "foreign",
    });
    expect(
      onlyEnvironment(environmentDoc({ url: "embedded:demo-dev?data=.egp/d.json&profile=foreign" })).endpoint,
    ).toEqual({ kind: "embedded", seed: "demo-dev", dataFile: "/repo/.egp/d.json", profile: "foreign" });
    expect(onlyEnvironment(environmentDoc({ url: "embedded:demo-dev?profile=default" })).endpoint).toEqual({
      kind: "embedded",
      seed: "demo-dev",
    });
    const errors = lines(
      errorsOf({ environments: { a: environmentDoc({ url: "embedded:empty?profile=alien" }) } }),
    );
    expect(errors).toEqual(["environments/a.yaml:1:6 url: profile= is default or foreign"]);
  });

  it("takes faults=<spec> as written, `+` included, and refuses an empty one", () => {
    expect(
      onlyEnvironment(
        environmentDoc({ url: "embedded:demo-dev?faults=installMs=1200,statuses=503+429&profile=foreign" }),
      ).endpoint,
    ).toEqual({
      kind: "embedded",
      seed: "demo-dev",
      profile: "foreign",
      faults: "installMs=1200,statuses=503+429",
    });
    const errors = lines(
      errorsOf({ environments: { a: environmentDoc({ url: "embedded:empty?faults=" }) } }),
    );
    expect(errors).toEqual([
      "environments/a.yaml:1:6 url: faults= needs a fault spec, as egp emulator --faults takes it",
    ]);
  });

  it("warns that tls is ignored", () => {
    const result = validate({ environments: { dev: environmentDoc({ tls: { insecure: true } }) } });
    expect(lines(result.warnings)).toEqual([
      expect.stringMatching(
        /^warning: environments\/dev\.yaml:\d+:3 tls: is ignored: an embedded emulator is plain HTTP inside the process$/,
      ),
    ]);
  });
});

describe("environment files: real instances", () => {
  it("substitutes the password and keeps it as a secret", () => {
    const environment = onlyEnvironment(realEnvironmentDoc({ url: "https://grc.example.com/RSAarcher/" }));
    expect(environment.endpoint).toEqual({ kind: "http", url: "https://grc.example.com/RSAarcher" });
    expect(environment.instance).toBe("Production");
    expect(environment.auth).toMatchObject({ username: "svc_gitops", domain: "", scheme: "Platform" });
    expect(environment.auth.password.reveal()).toBe(VARIABLES.EGP_PROD_PASSWORD);
    expect(JSON.stringify(environment)).not.toContain(VARIABLES.EGP_PROD_PASSWORD);
  });

  it("needs instance and auth", () => {
    const errors = errorsOf({ environments: { prod: { url: "https://grc.example.com" } } });
    expect(lines(errors)).toEqual([
      "environments/prod.yaml:1:1 instance: is required for a real instance (the InstanceName to log into)",
      "environments/prod.yaml:1:1 auth: is required for a real instance: { username, password: ${VAR} }",
    ]);
    const partial = errorsOf({ environments: { prod: realEnvironmentDoc({ auth: { username: "svc" } }) } });
    expect(lines(partial)).toEqual([
      expect.stringMatching(/^environments\/prod\.yaml:\d+:\d+ auth\.password: is required; use \$\{VAR\}$/),
    ]);
  });

  it("warns about a password written in the file, and about plain http to another host", () => {
    const result = validate({
      environments: {
        prod: realEnvironmentDoc({
          url: "http://grc.example.com",
          auth: { username: "u", password: "literal" },
        }),
      },
    });
    expect(result.ok).toBe(true);
    expect(result.warnings.map((w) => `${w.path}: ${w.message}`)).toEqual([
      "url: plain http: the password and session token travel unencrypted",
      "auth.password: is written in the file; use ${VAR} so that it stays out of git",
    ]);
    expect(lines(result.warnings).join("\n")).not.toContain("literal");
  });

  it("refuses credentials in the url without printing them", () => {
    const errors = lines(
      errorsOf({ environments: { prod: realEnvironmentDoc({ url: "https://u:pw123@grc.example.com" }) } }),
    );
    expect(errors).toEqual([
      "environments/prod.yaml:1:6 url: must not hold credentials; put them under auth",
    ]);
  });

  it("checks tls: insecure warns, insecure with caFile is an error, a missing caFile is an error", () => {
    const insecure = validate({ environments: { prod: realEnvironmentDoc({ tls: { insecure: true } }) } });
    expect(insecure.ok).toBe(true);
    expect(insecure.warnings.map((w) => w.message)).toContain("certificate verification is off");

    const both = errorsOf({
      environments: { prod: realEnvironmentDoc({ tls: { insecure: true, caFile: "ca.pem" } }) },
    });
    expect(both.map((e) => `${e.path}: ${e.message}`)).toEqual([
      "tls.insecure: contradicts tls.caFile; give one of them",
    ]);

    const missing = errorsOf(
      { environments: { prod: realEnvironmentDoc({ tls: { caFile: "certs/ca.pem" } }) } },
      { fileExists: () => false },
    );
    expect(missing.map((e) => `${e.path}: ${e.message}`)).toEqual([
      "tls.caFile: file not found: certs/ca.pem",
    ]);

    const found = onlyEnvironment(realEnvironmentDoc({ tls: { caFile: "certs/ca.pem" } }));
    expect(found.tls).toEqual({ caFile: "/repo/certs/ca.pem", insecure: false });
  });
});

describe("environment files: validation", () => {
  it("reports an unknown key at the key, and a type error at the value", () => {
    const text = ["url: embedded:empty", "limits:", "  concurrency: four", "  burst: 3", "rolez: {}"].join(
      "\n",
    );
    expect(lines(errorsOf({ environments: { dev: text } }))).toEqual([
      "environments/dev.yaml:3:16 limits.concurrency: expected a number, got text",
      'environments/dev.yaml:4:3 limits.burst: unknown key "burst"',
      'environments/dev.yaml:5:1 rolez: unknown key "rolez"; did you mean "roles"?',
    ]);
  });

  it("does not name an unknown key that may be part of a secret", () => {
    const text = [
      "url: https://grc.example.com",
      "instance: Production",
      // A comma in a literal password, in a { } mapping, makes its second half a key.
      "auth: { username: svc, password: Mk9!zqvX, SECRET7f3, passwrd: x }",
      "tls: { Mk9!zqvX-SECRET-7f3: true }",
    ].join("\n");
    expect(lines(errorsOf({ environments: { prod: text } }))).toEqual([
      "environments/prod.yaml:3:44 auth: unknown key (not shown: it may be part of a secret)",
      "environments/prod.yaml:3:55 auth: unknown key (not shown: it may be part of a secret)",
      "environments/prod.yaml:4:8 tls: unknown key (not shown: it may be part of a secret)",
    ]);
  });

  it("checks role and group ids", () => {
    const errors = errorsOf({ environments: { dev: environmentDoc({ roles: { "General User": 0 } }) } });
    expect(errors.map((e) => `${e.path}: ${e.message}`)).toEqual([
      'roles["General User"]: must be greater than 0',
    ]);
  });

  it("checks packagesFrom: a known environment, not itself, no cycle", () => {
    const unknown = errorsOf({ environments: { prod: environmentDoc({ packagesFrom: "staging" }) } });
    expect(unknown.map((e) => e.message)).toEqual(['unknown environment "staging" (known: prod)']);
    const self = errorsOf({ environments: { prod: environmentDoc({ packagesFrom: "prod" }) } });
    expect(self.map((e) => e.message)).toEqual(["names this environment itself"]);
    const cycle = errorsOf({
      environments: {
        a: environmentDoc({ packagesFrom: "c" }),
        b: environmentDoc({ packagesFrom: "a" }),
        c: environmentDoc({ packagesFrom: "b" }),
      },
    });
    expect(lines(cycle)).toEqual([
      expect.stringMatching(/^environments\/a\.yaml:\d+:\d+ packagesFrom: promotion cycle: a → c → b → a$/),
    ]);
  });

  it("checks release: not with packagesFrom, and requiresVerifiedOn names known environments", () => {
    const both = errorsOf({
      environments: {
        dev: environmentDoc(),
        prod: environmentDoc({ packagesFrom: "dev", release: "2026-11-r1" }),
      },
    });
    expect(lines(both)).toEqual([
      expect.stringMatching(
        /^environments\/prod\.yaml:\d+:\d+ release: and packagesFrom exclude each other: an environment runs a release, or is promoted to from a live source$/,
      ),
    ]);
    const gate = errorsOf({
      environments: { prod: environmentDoc({ release: "2026-11-r1", requiresVerifiedOn: ["test", "prod"] }) },
    });
    expect(gate.map((e) => `${e.path}: ${e.message}`)).toEqual([
      'requiresVerifiedOn[0]: unknown environment "test" (known: prod)',
      "requiresVerifiedOn[1]: names this environment itself",
    ]);
    const name = errorsOf({ environments: { prod: environmentDoc({ release: "Release 1" }) } });
    expect(name.map((e) => `${e.path}: ${e.message}`)).toEqual([
      "release: expected a release name (a file in releases/)",
    ]);
  });

  it("loads the source environment with the target", () => {
    const [state] = statesOf(
      { environments: { dev: environmentDoc(), prod: environmentDoc({ packagesFrom: "dev" }) } },
      { env: "prod" },
    );
    expect(state?.environment.name).toBe("prod");
    expect(state?.packagesFrom?.name).toBe("dev");
    expect(state?.files).toEqual(["environments/prod.yaml", "environments/dev.yaml"]);
  });

  it("needs at least one environment file, and names an unknown --env", () => {
    expect(lines(errorsOf({ environments: {} }))).toEqual([
      "environments/: no environment files; add environments/<env>.yaml",
    ]);
    expect(lines(errorsOf({}, { env: "prod" }))).toEqual([
      "environments/prod.yaml: no such environment (known: dev)",
    ]);
  });

  it("holds one document, and refuses an empty file", () => {
    expect(
      lines(errorsOf({ environments: { dev: "url: embedded:empty\n---\nurl: embedded:empty\n" } })),
    ).toEqual(["environments/dev.yaml:3:1: an environment file holds one document"]);
    expect(lines(errorsOf({ environments: { dev: "# nothing yet\n" } }))).toEqual([
      "environments/dev.yaml: is empty; an environment file needs at least url",
    ]);
  });
});

describe("environment files: timeouts", () => {
  it("defaults to 10 s to connect, 30 s for the answer's head, 120 s per call and 120 s of stall", () => {
    expect(onlyEnvironment(environmentDoc()).timeouts).toEqual({
      connectMs: 10_000,
      headersMs: 30_000,
      requestMs: 120_000,
      bodyMs: 120_000,
    });
  });

  it("reads seconds as numbers, and numbers with ms, s or m", () => {
    const doc = environmentDoc({ timeouts: { connect: 2.5, headers: "45s", request: "3m", stall: "500ms" } });
    expect(onlyEnvironment(doc).timeouts).toEqual({
      connectMs: 2_500,
      headersMs: 45_000,
      requestMs: 180_000,
      bodyMs: 500,
    });
  });

  it("reports a bad value, an unknown key and an out-of-range value at file:line:col", () => {
    const text = [
      "url: embedded:empty",
      "timeouts:",
      "  connect: 10 seconds",
      "  headers: -1",
      "  body: 30",
      "  request: 2000m",
    ].join("\n");
    expect(lines(errorsOf({ environments: { dev: text } }))).toEqual([
      "environments/dev.yaml:3:12 timeouts.connect: expected a duration: seconds as a number, or a number with ms, s, m or h (30s, 500ms, 2m, 1h)",
      "environments/dev.yaml:4:12 timeouts.headers: must be greater than 0",
      'environments/dev.yaml:5:3 timeouts.body: unknown key "body"',
    ]);
    const range = ["url: embedded:empty", "timeouts:", "  request: 2000m"].join("\n");
    expect(lines(errorsOf({ environments: { dev: range } }))).toEqual([
      "environments/dev.yaml:3:12 timeouts.request: must be from 1ms to 24h",
    ]);
  });

  it("waits an hour for a package job and for an install's objects to match, unless the file says otherwise", () => {
    expect(onlyEnvironment(environmentDoc()).waits).toEqual({ jobMs: 3_600_000, verifyMs: 3_600_000 });
    const doc = environmentDoc({ timeouts: { job: "1.5h", verify: "45m" } });
    expect(onlyEnvironment(doc).waits).toEqual({ jobMs: 5_400_000, verifyMs: 2_700_000 });
    expect(onlyEnvironment(environmentDoc({ timeouts: { job: 90 } })).waits.jobMs).toBe(90_000);
  });

  it("reports a bad job or verify wait at file:line:col", () => {
    const text = ["url: embedded:empty", "timeouts:", "  job: an hour", "  verify: 25h"].join("\n");
    expect(lines(errorsOf({ environments: { dev: text } }))).toEqual([
      "environments/dev.yaml:3:8 timeouts.job: expected a duration: seconds as a number, or a number with ms, s, m or h (30s, 500ms, 2m, 1h)",
    ]);
    const range = ["url: embedded:empty", "timeouts: { job: 1h, verify: 25h }"].join("\n");
    expect(lines(errorsOf({ environments: { dev: range } }))).toEqual([
      "environments/dev.yaml:2:30 timeouts.verify: must be from 1ms to 24h",
    ]);
  });
});

describe("environment files: install codes", () => {
  it("keeps the codes the file gives, and nothing when it gives none", () => {
    expect(onlyEnvironment(environmentDoc()).installCodes).toBeUndefined();
    const doc = environmentDoc({
      installCodes: { installMethod: { createNew: 0 }, translationOption: { install: 3 } },
    });
    expect(onlyEnvironment(doc).installCodes).toEqual({
      installMethod: { createNew: 0 },
      translationOption: { install: 3 },
    });
  });

  it("reports an unknown word, a code that is not a whole number and a code given twice at file:line:col", () => {
    const text = [
      "url: embedded:empty",
      "installCodes:",
      "  installMethod: { createOnly: 1 }",
      "  installOption: { keep: 1.5 }",
      "  translationOption: { none: 1, install: 1 }",
    ].join("\n");
    expect(lines(errorsOf({ environments: { dev: text } }))).toEqual([
      'environments/dev.yaml:3:20 installCodes.installMethod.createOnly: unknown key "createOnly"',
      "environments/dev.yaml:4:26 installCodes.installOption.keep: expected an integer, got a number",
    ]);
    const twice = [
      "url: embedded:empty",
      "installCodes:",
      "  translationOption: { none: 1, install: 1 }",
    ].join("\n");
    expect(lines(errorsOf({ environments: { dev: twice } }))).toEqual([
      "environments/dev.yaml:3:42 installCodes.translationOption.install: is none's code too; each word needs its own code",
    ]);
    const assumed = ["url: embedded:empty", "installCodes:", "  installMethod: { createNew: 2 }"].join("\n");
    expect(lines(errorsOf({ environments: { dev: assumed } }))).toEqual([
      "environments/dev.yaml:3:31 installCodes.installMethod.createNew: is createAndUpdate's assumed code too; give createAndUpdate's code as well",
    ]);
  });
});

describe("environment files: freeze windows", () => {
  it("reports a day that is not a day word at the value, naming the day words", () => {
    const text = [
      "url: embedded:empty",
      "freeze:",
      '  - { weekly: [fri], from: "16:00", to: "23:59", reason: weekend }',
    ].join("\n");
    expect(lines(errorsOf({ environments: { dev: text } }))).toEqual([
      'environments/dev.yaml:3:16 freeze[0].weekly[0]: "fri" is not a day; use monday, tuesday, wednesday, thursday, friday, saturday or sunday',
    ]);
  });
});
