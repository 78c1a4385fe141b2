import { z } from "zod";
import { bind } from "../bind.ts";
import { failed, ok } from "../envelope.ts";
import { forbidden, message } from "../failure.ts";
import type { Routes } from "../router.ts";
import { isAdministrator, tokenFrom } from "../sessions.ts";
import { logIn } from "../users/login.ts";

const Login = z.object({
  InstanceName: z.string(),
  Username: z.string().min(1),
  UserDomain: z.string().nullable().optional(),
  Password: z.string(),
});

const Logout = z.object({ Value: z.string() });

export interface SecurityOptions {
  scheme: string;
}

// Bad credentials answer HTTP 200 with IsSuccessful false, as real instances do.
const invalidCredentials = () =>
  failed([message("InvalidCredentials", "The instance name, user name, domain or password is not valid.")]);

export function registerSecurity(routes: Routes, options: SecurityOptions): void {
  routes.post(
    "/core/security/login",
    ({ body, store }) => {
      const login = bind(Login, body, "login");
      const outcome = logIn(store, {
        instance: login.InstanceName,
        userName: login.Username,
        password: login.Password,
      });
      if ("refused" in outcome) {
        if (outcome.refused === "AccountLocked") {
          return failed([message("AccountLocked", "The user account is locked.")]);
        }
        if (outcome.refused === "AccountInactive") {
          return failed([message("AccountInactive", "The user account is inactive.")]);
        }
        return invalidCredentials();
      }
      const { session, record } = outcome;
      return ok({ SessionToken: session.token, UserId: record.user.Id, InstanceName: store.data.instance });
    },
    { auth: false },
  );

  // Logout answers true for an ended or unknown token. Ending another user's live session needs a
  // caller session with the System Administrator role.
  routes.post(
    "/core/security/logout",
    ({ body, store, req }) => {
      const { Value } = bind(Logout, body, "logout");
      const target = store.sessions.get(Value);
      if (!target) return ok(true);
      const callerToken = tokenFrom(req.headers.authorization, options.scheme);
      const caller = callerToken ? store.sessions.get(callerToken) : undefined;
      const ownSession = !caller || callerToken === Value || caller.userId === target.userId;
      if (!ownSession && !isAdministrator(store.user(caller.userId))) {
        throw forbidden("InsufficientPermission", "Ending another user's session needs permission to do so.");
      }
      store.sessions.delete(Value);
      return ok(true);
    },
    { auth: false },
  );
}
