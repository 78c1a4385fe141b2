/*
 * The session: logged in lazily, once, however many calls start together (they share one pending
 * login). A call that meets a 401 asks for a renewal with the token it used; concurrent callers
 * that saw the same stale token share one re-login, and a caller whose token was already replaced
 * gets the new one without another login.
 */

export type Login = () => Promise<string>;

export class Session {
  private readonly login: Login;
  private token: string | undefined;
  private pending: Promise<string> | undefined;

  constructor(login: Login) {
    this.login = login;
  }

  /** The live token, if any; never starts a login. */
  get active(): string | undefined {
    return this.token;
  }

  /** The token to use, logging in first when there is none. */
  current(): Promise<string> {
    if (this.token) return Promise.resolve(this.token);
    this.pending ??= this.login().then(
      (token) => {
        this.token = token;
        this.pending = undefined;
        return token;
      },
      (error: unknown) => {
        this.pending = undefined;
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

  /** Takes the session out of use, waiting for a login in progress; returns its token. */
  async release(): Promise<string | undefined> {
    if (this.pending) await this.pending.catch(() => undefined);
    const token = this.token;
    this.token = undefined;
    return token;
  }

  /** Makes `token` the session's token (after an explicit login). */
  adopt(token: string): void {
    this.token = token;
  }
}
