import { describe, expect, it } from "vitest";
import { validateRepository } from "../../src/manifest/index.ts";
import { fastParser, yamlParser } from "../../src/manifest/yaml-source.ts";
import { safeParseFast } from "../../src/schema/as-is.ts";
import { type SafeParse, zodParse } from "../../src/schema/validate.ts";
import { lines, parameterDoc, type RepositorySpec, repository, userDoc, VARIABLES } from "./builders.ts";
import { activeUsers, cachedLoad, stateDir } from "./cache-runs.ts";

/*
 * The loader's speed machinery passed in as values (the benchmarks measure each piece against its
 * plain variant): the plain variants load the same states and report the same errors.
 */

const VALID: RepositorySpec = {
  manifests: {
    "users.yaml": activeUsers(20),
    "parameters.yaml": [parameterDoc({ minPasswordLength: 12 })],
  },
};

const INVALID: RepositorySpec = {
  manifests: {
    "users.yaml": [userDoc({ userName: "" }), userDoc({ userName: "b", status: "gone" })],
    "broken.yaml": "kind: User\nuserName: [a\n",
  },
};

const options = { variables: VARIABLES, fileExists: () => true };
const plain = { parser: yamlParser, validate: zodParse };

describe("the loader's plain variants", () => {
  it("load the same desired states as the defaults", () => {
    const repo = repository(VALID);
    const fast = validateRepository(repo, options);
    expect(fast.ok).toBe(true);
    expect(validateRepository(repo, { ...options, ...plain })).toEqual(fast);
  });

  it("report the same errors, at the same places", () => {
    const repo = repository(INVALID);
    const fast = validateRepository(repo, options);
    const slow = validateRepository(repo, { ...options, ...plain });
    expect(fast.ok || slow.ok).toBe(false);
    expect(slow.ok ? [] : lines(slow.errors)).toEqual(fast.ok ? [] : lines(fast.errors));
  });

  it("validate through the function given", () => {
    let calls = 0;
    const counting: SafeParse = (schema, value) => {
      calls += 1;
      return safeParseFast(schema, value);
    };
    validateRepository(repository(VALID), { ...options, validate: counting });
    expect(calls).toBe(21);
  });

  it("a parser that cannot restore keeps no parse in the manifest cache, only the state", async () => {
    const dir = await stateDir();
    const repo = repository(VALID);
    const first = cachedLoad(repo, dir, { env: "dev", parser: yamlParser });
    expect(first.cache.stats).toMatchObject({ written: 0, statesWritten: 1 });
    const fast = cachedLoad(repo, dir, { parser: fastParser });
    expect(fast.cache.stats).toMatchObject({ hits: 0, written: 2 });
  });
});
