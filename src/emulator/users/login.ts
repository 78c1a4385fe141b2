import { periodMs } from "../sessions.ts";
import type { Session, Store, UserRecord } from "../store.ts";

/*
 * Checking credentials and opening a session, shared by the REST login and the web services'
 * `CreateUserSessionFromInstance`, so that a token from either works on both and failed logins
 * count toward one lockout.
 */

export interface Credentials {
  instance: string;
  userName: string;
  password: string;
}

export type LoginOutcome =
  | { session: Session; record: UserRecord }
  | { refused: "InvalidCredentials" | "AccountLocked" | "AccountInactive" };

/** Unlocks an account whose lockout period has passed. */
function releaseLockout(store: Store, record: UserRecord): void {
  if (record.user.AccountStatus === 3 && record.lockedUntil !== null && store.now() >= record.lockedUntil) {
    record.user.AccountStatus = 1;
    record.lockedUntil = null;
    record.failedLogins = 0;
    store.changed(`users/${record.user.Id}`);
  }
}

function registerFailedLogin(store: Store, record: UserRecord): void {
  record.failedLogins += 1;
  const parameter = store.parameterFor(record);
  const max = parameter?.MaximumFailedLoginAttempts ?? 0;
  if (max > 0 && record.failedLogins >= max) {
    record.user.AccountStatus = 3;
    record.lockedUntil = store.now() + periodMs(parameter?.LockoutPeriod, parameter?.LockoutPeriodType);
    store.endSessionsOf(record.user.Id);
  }
  store.changed(`users/${record.user.Id}`);
}

export function logIn(store: Store, credentials: Credentials): LoginOutcome {
  if (credentials.instance.toLowerCase() !== store.data.instance.toLowerCase()) {
    return { refused: "InvalidCredentials" };
  }
  const record = store.userByName(credentials.userName);
  if (!record) return { refused: "InvalidCredentials" };
  releaseLockout(store, record);
  if (record.user.AccountStatus === 3) return { refused: "AccountLocked" };
  if (!store.passwordMatches(record, credentials.password)) {
    registerFailedLogin(store, record);
    return { refused: "InvalidCredentials" };
  }
  if (record.user.AccountStatus !== 1) return { refused: "AccountInactive" };
  record.failedLogins = 0;
  record.user.LastLoginDate = store.isoNow();
  store.changed(`users/${record.user.Id}`);
  return { session: store.openSession(record.user.Id), record };
}
