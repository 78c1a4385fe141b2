import { LoginRefusedError } from "./errors.ts";

/*
 * The session: logged in lazily, once, however many calls start together (they share one pending
 * login). A call that meets a 401 asks for a renewal with the token it used; concurrent callers
 * that saw the same stale token share one re-login, and a caller whose token was already replaced
 * gets the new one without another login.
 * A login refused for its credentials is remembered: every later call, renewal or explicit login
 * fails at once with the same error, because each refused try counts towards the account's lockout
 * (DESIGN §3: one failed login per environment per run).
 */

export type Login = () => Promise<string>;

export class Session {
  private readonly login: Login;
  private token: string | undefined;
  private pending: Promise<string> | undefined;
  private refusal: LoginRefusedError | undefined;

  constructor(login: Login) {
    this.login = login;
  }

  /** The live token, if any; never starts a login. */
  get active(): string | undefined {
    return this.token;
  }

  /** The refusal that ended this session's logins, if one did. */
  get refused(): LoginRefusedError | undefined {
    return this.refusal;
  }

  /** The token to use, logging in first when there is none. */
  current(): Promise<string> {
    if (this.refusal) return Promise.reject(this.refusal);
    if (this.token) return Promise.resolve(this.token);
    this.pending ??= this.login().then(
      (token) => {
        this.token = token;
        this.pending = undefined;
        return token;
      },
      (error: unknown) => {
        this.pending = undefined;
        if (error instanceof LoginRefusedError) this.refusal = error;
        throw error;
      },
    );
    return this.pending;
  }

  /** A fresh token after `stale` was refused. */
  renew(stale: string): Promise<string> {
    if (this.token === stale) this.token = undefined;
    return this.current();
  }

  /** A new login even when a session is open (an explicit login); the new token becomes the session's. */
  async fresh(): Promise<string> {
    if (this.pending) await this.pending.catch(() => undefined);
    this.token = undefined;
    return this.current();
  }

  /** Takes the session out of use, waiting for a login in progress; returns its token. */
  async release(): Promise<string | undefined> {
    if (this.pending) await this.pending.catch(() => undefined);
    const token = this.token;
    this.token = undefined;
    return token;
  }
}
