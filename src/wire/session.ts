import { z } from "zod";

export const SessionContext = z.object({ SessionToken: z.string() });
export type SessionContext = z.infer<typeof SessionContext>;

export const LoginRequest = z.object({
  InstanceName: z.string(),
  Username: z.string(),
  UserDomain: z.string().nullable(),
  Password: z.string(),
});
export type LoginRequest = z.infer<typeof LoginRequest>;

/** Logout body: the token of the session to end. */
export const LogoutRequest = z.object({ Value: z.string() });
export type LogoutRequest = z.infer<typeof LogoutRequest>;

/** The session token is 32 upper-case hex characters on real instances. */
export const SESSION_TOKEN_PATTERN = /^[0-9A-F]{32}$/;
