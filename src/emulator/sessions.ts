import type { FastifyRequest } from "fastify";
import type { SecurityParameter } from "../wire/index.ts";
import { forbidden, HttpFailure, message } from "./failure.ts";
import { FIXED } from "./seeds/fixed.ts";
import type { Session, Store, UserRecord } from "./store.ts";

const UNIT_MS: Record<number, number> = { 1: 3_600_000, 2: 60_000, 3: 86_400_000 };

/** A period in ms from a count and a LockoutPeriodType/SessionTimeoutType code (1 h, 2 min, 3 d). */
export function periodMs(count: number | null | undefined, type: number | null | undefined): number {
  return (count ?? 0) * (UNIT_MS[type ?? 2] ?? UNIT_MS[2]!);
}

/** Reads `<Scheme> session-id="<token>"`; quotes are optional, the scheme word is case-insensitive. */
export function tokenFrom(header: string | undefined, scheme: string): string | undefined {
  if (!header) return undefined;
  const match = /^\s*(\S+)\s+session-id\s*=\s*"?([^"\s]*)"?\s*$/i.exec(header);
  if (!match || match[1]?.toLowerCase() !== scheme.toLowerCase()) return undefined;
  return match[2] || undefined;
}

/**
 * The session cookie of the web application, `__<Scheme>SessionCookie__`, as public clients of real
 * instances send it to the Content API and the web application's own calls.
 */
export function sessionCookieName(scheme: string): string {
  return `__${scheme}SessionCookie__`;
}

/** The session cookie's value from a Cookie header (names compare exactly, as cookies do). */
export function tokenFromCookie(header: string | undefined, scheme: string): string | undefined {
  if (!header) return undefined;
  const name = sessionCookieName(scheme);
  for (const part of header.split(";")) {
    const equals = part.indexOf("=");
    if (equals > 0 && part.slice(0, equals).trim() === name)
      return part.slice(equals + 1).trim() || undefined;
  }
  return undefined;
}

function unauthorized(key: string, description: string): HttpFailure {
  return new HttpFailure(401, message(key, description, { reason: "Unauthorized" }));
}

export function sessionExpired(
  session: Session,
  parameter: SecurityParameter | undefined,
  now: number,
): boolean {
  if (!parameter) return false;
  const idle = periodMs(parameter.SessionTimeout, parameter.SessionTimeoutType);
  if (idle > 0 && now - session.lastSeen > idle) return true;
  const absolute = periodMs(parameter.StaticSessionTimeout, parameter.SessionTimeoutType);
  return absolute > 0 && now - session.createdAt > absolute;
}

/**
 * Finds the caller's live session, or throws 401. Touching it restarts its idle timer. With
 * `cookie`, the session cookie stands in for a missing Authorization header.
 */
export function authenticator(scheme: string) {
  return (req: FastifyRequest, store: Store, cookie = false): Session => {
    const token =
      tokenFrom(req.headers.authorization, scheme) ??
      (cookie ? tokenFromCookie(req.headers.cookie, scheme) : undefined);
    if (!token) {
      throw unauthorized("MissingSessionToken", `Send Authorization: ${scheme} session-id="<token>".`);
    }
    return liveSession(store, token);
  };
}

/**
 * The live session of a token, or a 401 failure; touching it restarts its idle timer. The web
 * services, which carry the token in the body, check it here too.
 */
export function liveSession(store: Store, token: string): Session {
  const session = store.sessions.get(token);
  if (!session) throw unauthorized("InvalidSessionToken", "The session token is invalid or has ended.");
  const record = store.user(session.userId);
  const now = store.now();
  if (record?.user.AccountStatus !== 1 || sessionExpired(session, store.parameterFor(record), now)) {
    store.sessions.delete(token);
    throw unauthorized("SessionExpired", "The session has expired; log in again.");
  }
  session.lastSeen = now;
  return session;
}

export function isAdministrator(record: UserRecord | undefined): boolean {
  return record?.roles.includes(FIXED.roles.systemAdministrator) ?? false;
}

/** System writes need the System Administrator role. */
export function requireAdministrator(store: Store, session: Session | undefined): void {
  if (!session || !isAdministrator(store.user(session.userId))) {
    throw forbidden("InsufficientPermission", "This call needs the System Administrator role.");
  }
}
