// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} here is manifest text, not a template.
import { stringify } from "yaml";
import {
  formatManifestError,
  type LoadOptions,
  type LoadResult,
  type ManifestIssue,
  type Repository,
  validateRepository,
} from "../../src/manifest/index.ts";

/*
 * Builders for manifest tests: small objects with sensible defaults, turned into an in-memory
 * repository. Positions are asserted on literal YAML text instead, where the line matters.
 */

type Doc = Record<string, unknown>;

export function environmentDoc(overrides: Doc = {}): Doc {
  return {
    url: "embedded:empty",
    roles: { "System Administrator": 1, "General User": 2 },
    groups: { Everyone: 1, Administrators: 2 },
    ...overrides,
  };
}

export function realEnvironmentDoc(overrides: Doc = {}): Doc {
  return environmentDoc({
    url: "https://grc.example.com",
    instance: "Production",
    auth: { username: "svc_gitops", password: "${EGP_PROD_PASSWORD}" },
    ...overrides,
  });
}

export function userDoc(overrides: Doc = {}): Doc {
  return { kind: "User", userName: "jdoe", firstName: "Jane", lastName: "Doe", ...overrides };
}

export function parameterDoc(overrides: Doc = {}): Doc {
  return { kind: "SecurityParameter", name: "Contractor Parameter", ...overrides };
}

export function packageDoc(overrides: Doc = {}): Doc {
  return { kind: "Package", name: "GRC Core", objects: [{ application: "Risk Register" }], ...overrides };
}

/** A file's text: a string as is, one document, or several documents separated by `---`. */
export function yamlText(content: string | Doc | Doc[]): string {
  if (typeof content === "string") return content;
  const docs = Array.isArray(content) ? content : [content];
  return docs.map((doc) => stringify(doc)).join("---\n");
}

export interface RepositorySpec {
  /** Environment name → its file; defaults to a `dev` environment on an empty emulator. */
  environments?: Record<string, string | Doc>;
  /** Path under manifests/ → its documents. */
  manifests?: Record<string, string | Doc | Doc[]>;
}

export function repository(spec: RepositorySpec = {}): Repository {
  const environments = spec.environments ?? { dev: environmentDoc() };
  return {
    dir: "/repo",
    environments: Object.entries(environments).map(([name, doc]) => ({
      path: `environments/${name}.yaml`,
      text: yamlText(doc),
    })),
    manifests: Object.entries(spec.manifests ?? {}).map(([path, docs]) => ({
      path: `manifests/${path}`,
      text: yamlText(docs),
    })),
  };
}

export const VARIABLES = { EGP_PROD_PASSWORD: "prod-Secret#1", EGP_DEMO_PASSWORD: "demo-Secret#2" } as const;

/** Validates a built repository with fixed variables and every file present. */
export function validate(spec: RepositorySpec, options: LoadOptions = {}): LoadResult {
  return validateRepository(repository(spec), { variables: VARIABLES, fileExists: () => true, ...options });
}

/** The states of a valid repository; fails the test, listing the errors, when it is invalid. */
export function statesOf(spec: RepositorySpec, options: LoadOptions = {}) {
  const result = validate(spec, options);
  if (!result.ok) throw new Error(`expected a valid repository:\n${lines(result.errors).join("\n")}`);
  return result.states;
}

export function errorsOf(spec: RepositorySpec, options: LoadOptions = {}): ManifestIssue[] {
  const result = validate(spec, options);
  return result.ok ? [] : result.errors;
}

/** Issues as the CLI prints them, one line each. */
export function lines(issues: readonly ManifestIssue[]): string[] {
  return issues.map(formatManifestError);
}
