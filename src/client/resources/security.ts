import { z } from "zod";
import { SessionContext } from "../../wire/index.ts";
import type { Caller } from "../caller.ts";
import { one } from "../envelope.ts";
import { LoginRefusedError } from "../errors.ts";
import type { ClientOptions } from "../options.ts";
import type { Scrub, Scrubber } from "../redact.ts";
import { route } from "../route.ts";
import type { Session } from "../session.ts";
import type { StatsRecorder } from "../stats.ts";

/*
 * Login and logout. Login is safe to repeat (a spare session idles out), so it is retried like a
 * read. Logout answers true even for a session that has already ended, so it is retried too.
 */

export interface SecurityDeps {
  caller: Caller;
  options: ClientOptions;
  scrubber: Scrubber;
  stats: StatsRecorder;
  session: Session;
}

const LoginAnswer = one(SessionContext.loose());
const LogoutAnswer = one(z.boolean());

/** Logs in with the configured credentials and returns the new token (not yet the session's). */
export async function logIn(deps: Omit<SecurityDeps, "session">): Promise<string> {
  const { options } = deps;
  deps.stats.login();
  const context = await deps.caller
    .call({
      method: "POST",
      route: route`/core/security/login`,
      auth: false,
      login: true,
      idempotent: true,
      json: {
        InstanceName: options.instance,
        Username: options.username,
        UserDomain: options.domain,
        Password: options.password,
      },
      decode: LoginAnswer,
    })
    .catch((error: unknown) => {
      throw error instanceof LoginRefusedError ? refusal(error, options, deps.scrubber.scrub) : error;
    });
  deps.scrubber.add(context.SessionToken);
  return context.SessionToken;
}

/** The refusal as a person reads it: which instance, which account, why, and that no retry follows. */
function refusal(error: LoginRefusedError, options: ClientOptions, scrub: Scrub): LoginRefusedError {
  const why =
    error.validationMessages
      .map((m) => [m.MessageKey, m.Description].filter(Boolean).join(": "))
      .filter(Boolean)
      .join("; ") || `HTTP ${error.status}`;
  const who = options.domain ? `${options.domain}\\${options.username}` : options.username;
  return new LoginRefusedError({
    code: error.code,
    message: `${options.name ?? new URL(options.url).host}: the login as ${who} was refused (${why}); no further login was tried, so that the account does not get locked`,
    status: error.status,
    method: error.method,
    path: error.path,
    validationMessages: error.validationMessages,
    headers: error.headers,
    cause: error,
    scrub,
  });
}

/** Ends the session of `value` with `token` as the caller's own credential. */
export function logOut(caller: Caller, value: string, token: string | undefined): Promise<boolean> {
  return caller.call({
    method: "POST",
    route: route`/core/security/logout`,
    auth: false,
    token,
    idempotent: true,
    json: { Value: value },
    decode: LogoutAnswer,
  });
}

export function securityResource(deps: SecurityDeps) {
  return {
    /** Logs in now (again, if a session is open) and makes the new session the client's. */
    async login(): Promise<SessionContext> {
      return { SessionToken: await deps.session.fresh() };
    },

    /**
     * Ends a session: by default the client's own (the next call logs in again). Ending another
     * user's session needs the permission to do so; the client's own session is the credential.
     */
    async logout(value?: string): Promise<boolean> {
      const own = deps.session.active;
      if (value === undefined || value === own) {
        const token = await deps.session.release();
        return token ? logOut(deps.caller, token, token) : true;
      }
      deps.scrubber.add(value);
      const caller = await deps.session.current();
      return logOut(deps.caller, value, caller);
    },
  };
}

export type SecurityResource = ReturnType<typeof securityResource>;
