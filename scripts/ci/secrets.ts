/*
 * Credentials reach egp as environment variables named after the `${VAR}` of the environment files.
 * A workflow hands the job's secrets over as `EGP_CI_SECRETS: ${{ toJSON(secrets) }}`; only those
 * named EGP_* go on to egp's process, so GITHUB_TOKEN and unrelated secrets never do. Values are
 * never printed: only names are reported.
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
  const picked: Record<string, string> = {};
  for (const [name, value] of Object.entries(parsed)) {
    if (SECRET_NAME.test(name) && typeof value === "string") picked[name] = value;
  }
  return picked;
}
