/*
 * Credentials reach egp as environment variables named after the `${VAR}` of the environment files.
 * A workflow hands the job's secrets over as `EGP_CI_SECRETS: ${{ toJSON(secrets) }}`; only those
 * named EGP_* go on to egp's process, so GITHUB_TOKEN and unrelated secrets never do. Values are
 * never printed: only names are reported.
 *
 * A pipeline of any stage names passes them with `secrets: inherit`, or, naming its secrets, as one:
 * EGP_SECRETS, a JSON object of EGP_* names and values (`{"EGP_TEST_PASSWORD": "…"}`), whose entries
 * are taken as if each were a secret of its own; a secret passed by its own name wins.
 */

export const SECRET_NAME = /^EGP_[A-Z0-9_]+$/;

/** The EGP_* entries of the secrets JSON, as environment variables. Throws on JSON that isn't an object. */
export function secretsForEgp(json: string | undefined): Record<string, string> {
  if (!json?.trim()) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    // The parser's message quotes the text, which would be the secrets themselves.
    throw new Error("EGP_CI_SECRETS is not JSON; set it to the expression toJSON(secrets)");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new Error("EGP_CI_SECRETS is not a JSON object; set it to the expression toJSON(secrets)");
  }
  const named = egpEntries(parsed);
  const { [MAPPING]: mapping, ...own } = named;
  return { ...(mapping === undefined ? {} : mappedSecrets(mapping)), ...own };
}

/** The one secret that carries others: a JSON object of EGP_* names and values. */
export const MAPPING = "EGP_SECRETS";

function egpEntries(object: object): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const [name, value] of Object.entries(object)) {
    if (SECRET_NAME.test(name) && typeof value === "string") picked[name] = value;
  }
  return picked;
}

function mappedSecrets(json: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new Error(`${MAPPING} is not JSON: store it as {"EGP_TEST_PASSWORD": "…", …}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new Error(`${MAPPING} is not a JSON object: store it as {"EGP_TEST_PASSWORD": "…", …}`);
  const { [MAPPING]: _nested, ...entries } = egpEntries(parsed);
  return entries;
}

/**
 * The `::add-mask::` lines for values GitHub did not register as secrets (those an EGP_SECRETS
 * carried), so that the log hides them as it hides a secret of its own.
 */
export function maskCommands(json: string | undefined): string {
  // Checked first, so that JSON that isn't is refused without being quoted.
  if (Object.keys(secretsForEgp(json)).length === 0 || !json) return "";
  const mapping = egpEntries(JSON.parse(json) as object)[MAPPING];
  if (mapping === undefined) return "";
  return Object.values(mappedSecrets(mapping))
    .flatMap((value) => value.split(/\r?\n/).filter((line) => line.trim() !== ""))
    .map((line) => `::add-mask::${line}\n`)
    .join("");
}
