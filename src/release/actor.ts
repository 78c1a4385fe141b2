import { userInfo } from "node:os";
import { EgpError } from "../errors/index.ts";

/*
 * Who runs egp and who approved the run, as audit records, notifications and freeze exceptions
 * name them. The actor is matched (an exception lists actors); approvers are only recorded: the
 * approval itself is GitHub's environment protection, which egp can't check after the fact.
 */

/** Where the actor's name came from, as the audit record says it. */
export const ACTOR_SOURCES = ["EGP_ACTOR", "GITHUB_TRIGGERING_ACTOR", "GITHUB_ACTOR", "os"] as const;
export type ActorSource = (typeof ACTOR_SOURCES)[number];

export interface Actor {
  name: string;
  source: ActorSource;
}

type Variables = Readonly<Record<string, string | undefined>>;

const given = (env: Variables, name: string) => env[name]?.trim() || undefined;

/** The account GitHub Actions says started the run: a re-run's starter, else the triggering event's. */
function githubActor(env: Variables): Actor | undefined {
  const triggering = given(env, "GITHUB_TRIGGERING_ACTOR");
  if (triggering) return { name: triggering, source: "GITHUB_TRIGGERING_ACTOR" };
  const actor = given(env, "GITHUB_ACTOR");
  return actor ? { name: actor, source: "GITHUB_ACTOR" } : undefined;
}

function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return "unknown";
  }
}

/**
 * Who runs egp, and where the name came from. In GitHub Actions the actor is who started the run,
 * as GitHub says it: an EGP_ACTOR naming anyone else is refused, since anyone who can edit a
 * workflow could otherwise pass a freeze exception in another's name. Elsewhere EGP_ACTOR, else
 * GitHub's variables, else the operating system's user; the record keeps the source.
 */
export function actorIdentity(env: Variables = process.env): Actor {
  const declared = given(env, "EGP_ACTOR");
  const github = githubActor(env);
  if (env.GITHUB_ACTIONS === "true" && github) {
    if (declared && declared.toLowerCase() !== github.name.toLowerCase())
      throw new EgpError(
        "EGP_ACTOR_MISMATCH",
        `EGP_ACTOR is ${declared}, but GitHub Actions says ${github.name} started this run (${github.source}); in CI the actor is who started the run: remove EGP_ACTOR`,
      );
    return github;
  }
  if (declared) return { name: declared, source: "EGP_ACTOR" };
  return github ?? { name: osUser(), source: "os" };
}

/** Refuses, before anything is written, a run whose actor can't be named (`actorIdentity`). */
export function checkActor(env: Variables = process.env): void {
  actorIdentity(env);
}

/** The actor's name, as audit records and exceptions name it (`actorIdentity`). */
export function actorOf(env: Variables = process.env): string {
  return actorIdentity(env).name;
}

/** Most approvers a record keeps, and the longest name: a variable is input, not a list to trust. */
const MAX_APPROVERS = 50;
const MAX_NAME = 100;

/**
 * The approvers CI passes in EGP_APPROVERS (comma- or space-separated logins, as the release-apply
 * workflow reads them from GitHub's run approvals), each once, in the order given.
 */
export function approversOf(env: Variables = process.env): string[] {
  const names = (env.EGP_APPROVERS ?? "")
    .split(/[\s,]+/)
    .filter((name) => name !== "" && name.length <= MAX_NAME);
  return [...new Set(names)].slice(0, MAX_APPROVERS);
}
