// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is manifest text, not a template.
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadEnvironment, ManifestError, NO_PRUNING, validateRepository } from "../../src/manifest/index.ts";
import { testdir } from "../helpers/testdir.ts";
import {
  environmentDoc,
  errorsOf,
  lines,
  parameterDoc,
  repository,
  statesOf,
  userDoc,
  validate,
} from "./builders.ts";

const DEV_AND_PROD = { dev: environmentDoc(), prod: environmentDoc() };

function stateOf(environment: string, manifests: Record<string, unknown>) {
  const states = statesOf({ environments: DEV_AND_PROD, manifests: manifests as never });
  const state = states.find((s) => s.environment.name === environment);
  if (!state) throw new Error(`no state for ${environment}`);
  return state;
}

describe("documents and scoping", () => {
  it("apply a document to every environment unless environments: names some", () => {
    const manifests = {
      "u.yaml": [
        userDoc({ userName: "everywhere" }),
        userDoc({ userName: "prodonly", environments: ["prod"] }),
      ],
    };
    expect(stateOf("dev", manifests).users.map((u) => u.key)).toEqual(["everywhere"]);
    expect(stateOf("prod", manifests).users.map((u) => u.key)).toEqual(["everywhere", "prodonly"]);
  });

  it("report an environment that has no file", () => {
    const errors = errorsOf({
      environments: DEV_AND_PROD,
      manifests: { "u.yaml": userDoc({ environments: ["dev", "stage"] }) },
    });
    expect(lines(errors)).toEqual([
      'manifests/u.yaml:7:5 users[0].environments[1]: unknown environment "stage" (known: dev, prod)',
    ]);
    const empty = errorsOf({ manifests: { "u.yaml": userDoc({ environments: [] }) } });
    expect(empty.map((e) => `${e.path}: ${e.message}`)).toEqual([
      "users[0].environments: must list at least 1 item",
    ]);
  });

  it("with one environment selected, leave out documents scoped elsewhere, even their variables", () => {
    const spec = {
      environments: DEV_AND_PROD,
      manifests: { "u.yaml": [userDoc({ environments: ["prod"], initialPassword: "${ONLY_IN_PROD}" })] },
    };
    const dev = validate(spec, { env: "dev", variables: {} });
    expect(dev).toMatchObject({ ok: true, stats: { documents: 0, environments: 1 } });
    const prod = validate(spec, { env: "prod", variables: {} });
    expect(prod.ok ? [] : lines(prod.errors)).toEqual([
      "manifests/u.yaml:7:18 users[0].initialPassword: environment variable ONLY_IN_PROD is not set",
    ]);
  });

  it("report a document without a kind, with an unknown kind, or that is not a mapping", () => {
    const text = ["userName: a", "---", "kind: Usr", "---", "- a list", "---", "just text"].join("\n");
    expect(lines(errorsOf({ manifests: { "x.yaml": text } }))).toEqual([
      "manifests/x.yaml:1:1 documents[0].kind: is required (SecurityParameter, User, Package, Record, PrunePolicy)",
      "manifests/x.yaml:3:7 documents[1].kind: expected one of SecurityParameter, User, Package, Record, PrunePolicy",
      "manifests/x.yaml:5:1 documents[2]: a document is a mapping with a kind (SecurityParameter, User, Package, Record, PrunePolicy)",
      "manifests/x.yaml:7:1 documents[3]: a document is a mapping with a kind (SecurityParameter, User, Package, Record, PrunePolicy)",
    ]);
  });

  it("count documents and files", () => {
    const result = validate({
      environments: DEV_AND_PROD,
      manifests: {
        "a.yaml": [userDoc({ userName: "a" }), userDoc({ userName: "b" })],
        "b.yaml": parameterDoc(),
      },
    });
    expect(result.stats).toEqual({ documents: 3, files: 2, environments: 2 });
  });
});

describe("prune policy", () => {
  it("is to ignore everything when no document sets one", () => {
    expect(stateOf("dev", {}).prune).toEqual(NO_PRUNING);
  });

  it("is per kind and per environment", () => {
    const manifests = {
      "prune.yaml": [
        { kind: "PrunePolicy", environments: ["dev"], users: "delete", securityParameters: "delete" },
        { kind: "PrunePolicy", environments: ["prod"], users: "deactivate" },
      ],
    };
    expect(stateOf("dev", manifests).prune).toEqual({
      kind: "PrunePolicy",
      users: "delete",
      securityParameters: "delete",
      exclude: { securityParameters: [], users: [] },
      source: { file: "manifests/prune.yaml", line: 1, column: 7 },
    });
    expect(stateOf("prod", manifests).prune).toMatchObject({
      users: "deactivate",
      securityParameters: "ignore",
    });
  });

  it("allows deactivate for users only", () => {
    const errors = errorsOf({
      manifests: { "p.yaml": { kind: "PrunePolicy", securityParameters: "deactivate" } },
    });
    expect(errors.map((e) => `${e.path}: ${e.message}`)).toEqual([
      "prunePolicies[0].securityParameters: expected one of ignore, delete",
    ]);
  });

  it("is at most one per environment", () => {
    const errors = errorsOf({
      environments: DEV_AND_PROD,
      manifests: {
        "a.yaml": { kind: "PrunePolicy", users: "delete" },
        "b.yaml": { kind: "PrunePolicy", environments: ["prod"], users: "ignore" },
      },
    });
    expect(lines(errors)).toEqual([
      "manifests/b.yaml:1:7 prunePolicies[0].kind: a second PrunePolicy for environment prod (the first is at manifests/a.yaml:1:7)",
    ]);
  });
});

describe("prune policy exclusions", () => {
  it("list names per prunable kind, kept as written", () => {
    const manifests = {
      "prune.yaml": { kind: "PrunePolicy", users: "delete", exclude: { users: ["breakglass*", "Ops"] } },
    };
    expect(stateOf("dev", manifests).prune.exclude).toEqual({
      securityParameters: [],
      users: ["breakglass*", "Ops"],
    });
  });

  it("name only prunable kinds", () => {
    const errors = errorsOf({
      manifests: { "p.yaml": { kind: "PrunePolicy", exclude: { packages: ["x"] } } },
    });
    expect(errors.map((e) => e.path)).toEqual(["prunePolicies[0].exclude.packages"]);
  });
});

describe("ensure: absent", () => {
  it("names a user or a security parameter by its key alone, kept apart from the managed ones", () => {
    const state = stateOf("dev", {
      "u.yaml": [
        userDoc({ userName: "keep" }),
        { kind: "User", userName: "Gone.User", ensure: "absent" },
        { kind: "SecurityParameter", name: "Old Parameter", ensure: "absent" },
      ],
    });
    expect(state.users.map((u) => u.key)).toEqual(["keep"]);
    expect(state.securityParameters).toEqual([]);
    expect(state.absent).toEqual([
      {
        kind: "User",
        ensure: "absent",
        key: "gone.user",
        name: "Gone.User",
        source: { file: "manifests/u.yaml", line: 7, column: 11 },
        path: "users[1].userName",
      },
      {
        kind: "SecurityParameter",
        ensure: "absent",
        key: "old parameter",
        name: "Old Parameter",
        source: { file: "manifests/u.yaml", line: 11, column: 7 },
        path: "securityParameters[2].name",
      },
    ]);
  });

  it("refuses any other field, each at its position", () => {
    const errors = errorsOf({
      manifests: {
        "u.yaml": { kind: "User", userName: "gone", ensure: "absent", firstName: "G", status: "inactive" },
      },
    });
    expect(lines(errors)).toEqual([
      "manifests/u.yaml:4:12 users[0].firstName: not allowed with ensure: absent, which names the object by its userName alone",
      "manifests/u.yaml:5:9 users[0].status: not allowed with ensure: absent, which names the object by its userName alone",
    ]);
  });

  it("is not allowed on a package, and a user can't be both present and absent", () => {
    const errors = errorsOf({
      manifests: {
        "u.yaml": [userDoc({ userName: "jdoe" }), { kind: "User", userName: "JDoe", ensure: "absent" }],
      },
    });
    expect(lines(errors)).toEqual([
      'manifests/u.yaml:7:11 users[1].userName: User "JDoe" is also defined at manifests/u.yaml:2:11',
    ]);
    const packageErrors = errorsOf({
      environments: { dev: environmentDoc({ packagesFrom: "src" }), src: environmentDoc() },
      manifests: { "p.yaml": { kind: "Package", name: "GRC Core", ensure: "absent" } },
    });
    expect(packageErrors.map((e) => `${e.path}: ${e.message}`)).toContain(
      'packages[0].ensure: unknown key "ensure" (Package GRC Core)',
    );
  });
});

describe("desired state", () => {
  it("is frozen", () => {
    const state = stateOf("dev", { "u.yaml": userDoc({ roles: ["General User"] }) });
    expect(Object.isFrozen(state)).toBe(true);
    expect(Object.isFrozen(state.users[0]?.roles)).toBe(true);
    expect(() => (state.users as unknown[]).push({})).toThrow(TypeError);
  });

  it("has a digest of the files as written, which a variable's value does not change", () => {
    const spec = { manifests: { "u.yaml": userDoc({ initialPassword: "${PW}" }) } };
    const digest = (variables: Record<string, string>, extra = {}) => {
      const result = validateRepository(repository({ ...spec, ...extra }), {
        variables,
        fileExists: () => true,
      });
      return result.ok ? result.states[0]?.digest : undefined;
    };
    expect(digest({ PW: "one" })).toMatch(/^[0-9a-f]{64}$/);
    expect(digest({ PW: "two" })).toBe(digest({ PW: "one" }));
    expect(
      digest({ PW: "one" }, { manifests: { "u.yaml": userDoc({ initialPassword: "${PW}", title: "x" }) } }),
    ).not.toBe(digest({ PW: "one" }));
  });
});

describe("loading from disk", () => {
  it("reads environments/*.yaml and manifests/**/*.yaml, skipping hidden files and other extensions", async () => {
    const dir = await testdir({
      "environments/dev.yaml": "url: embedded:empty\n",
      "environments/README.md": "not yaml",
      "manifests/team/a.yml": "kind: User\nuserName: a\nfirstName: A\nlastName: A\n",
      "manifests/.drafts/b.yaml": "kind: Broken\n",
      "manifests/notes.txt": "kind: Broken\n",
    });
    const { state } = await loadEnvironment(dir, "dev", { variables: {} });
    expect(state.users.map((u) => u.source.file)).toEqual(["manifests/team/a.yml"]);
    expect(state.files).toEqual(["environments/dev.yaml", "manifests/team/a.yml"]);
  });

  it("throws a ManifestError carrying every error", async () => {
    const dir = await testdir({
      "environments/dev.yaml": "url: embedded:empty\n",
      "manifests/u.yaml": "kind: User\nuserName: a\nfirstName: A\nlastName: A\nstatus: gone\ntitle: 5\n",
    });
    const load = loadEnvironment(dir, "dev", { variables: {} });
    await expect(load).rejects.toThrow(ManifestError);
    await expect(load).rejects.toThrow(
      "manifests/u.yaml:5:9 users[0].status: expected one of active, inactive, locked (and 1 more)",
    );
    await expect(load).rejects.toMatchObject({
      file: "manifests/u.yaml",
      line: 5,
      column: 9,
      issues: { length: 2 },
    });
  });

  it("finds no environment in an empty directory", async () => {
    const dir = await testdir({});
    await mkdir(join(dir, "manifests"));
    await expect(loadEnvironment(dir, "dev", { variables: {} })).rejects.toThrow(
      "environments/: no environment files; add environments/<env>.yaml (and 1 more)",
    );
  });
});
