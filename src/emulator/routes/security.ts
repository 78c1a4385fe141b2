import { z } from "zod";
import type { Envelope } from "../../wire/index.ts";
import { bind } from "../bind.ts";
import { failed, ok } from "../envelope.ts";
import { forbidden, message } from "../failure.ts";
import type { Routes } from "../router.ts";
import { isAdministrator, tokenFrom } from "../sessions.ts";
import type { Store, UserRecord } from "../store.ts";
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

/** A refused login answers HTTP 200, IsSuccessful false and a null RequestedObject, as real instances do. */
const refused = (key: string, text: string): Envelope<null> => ({
  ...failed([message(key, text)]),
  RequestedObject: null,
});

const invalidCredentials = () =>
  refused(
    "ValidationMessageTemplates:LoginNotValid",
    "The instance name, user name, domain or password is not valid.",
  );

/** English, the base language: a user of another language has the interface translated. */
const BASE_LANGUAGE = 1;

/** The login answer of real instances: the token, and the user's context that web clients read. */
function loginAnswer(store: Store, record: UserRecord, token: string) {
  const user = record.user;
  const languageId = user.LanguageId ?? BASE_LANGUAGE;
  const timeZone = user.TimeZoneId ?? "UTC";
  return ok({
    SessionToken: token,
    InstanceName: store.data.instance,
    UserId: user.Id,
    ContextType: 0,
    UserConfig: {
      TimeZoneId: timeZone,
      TimeZoneIdNET: timeZone,
      LocaleId: user.Locale ?? "en-US",
      LanguageId: languageId,
      DefaultHomeDashboardId: user.DefaultHomeDashboardId ?? -1,
      DefaultHomeWorkspaceId: user.DefaultHomeWorkspaceId ?? -1,
    },
    Translate: languageId !== BASE_LANGUAGE,
    RequestLanguageId: languageId,
  });
}

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
        if (outcome.refused === "AccountLocked")
          return refused("AccountLocked", "The user account is locked.");
        if (outcome.refused === "AccountInactive") {
          return refused("AccountInactive", "The user account is inactive.");
        }
        return invalidCredentials();
      }
      return loginAnswer(store, outcome.record, outcome.session.token);
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
