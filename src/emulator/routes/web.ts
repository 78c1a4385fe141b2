import { createHmac, randomBytes } from "node:crypto";
import { catalogueOf } from "../catalogue/model.ts";
import { badRequest, HttpFailure, message } from "../failure.ts";
import type { RouteContext, Routes } from "../router.ts";

/*
 * What the web application of a real instance answers beside the REST interface, and integrations
 * read (beyond the interface description; docs/emulator.md):
 * - the base path (`GET /`): the application's default document, the login page, 200;
 * - `GET /api/V2/internal/LookUp?node=root`: the navigation tree's root, with the session's CSRF
 *   token in a `csrf-token` response header, which clients then send as `x-csrf-token`.
 */

const LOGIN_PAGE = `<!DOCTYPE html>
<html><head><title>Log On</title></head>
<body><form method="post" action="Default.aspx"><h1>Log On</h1>
<label>User Name <input name="UserName"></label> <label>Password <input name="Password" type="password"></label>
<button type="submit">Log On</button></form></body></html>
`;

/** The session's CSRF token: stable for one session, different for every other, never the session token. */
function csrfTokens(): (sessionToken: string) => string {
  const key = randomBytes(32);
  return (sessionToken) => createHmac("sha256", key).update(sessionToken).digest("base64url");
}

function loginPage({ reply }: RouteContext): undefined {
  reply.type("text/html; charset=utf-8").send(LOGIN_PAGE);
  return undefined;
}

function lookUp(ctx: RouteContext, csrf: (sessionToken: string) => string) {
  const node = ctx.query.node;
  if (typeof node !== "string" || node === "") {
    throw badRequest("NodeRequired", "The query parameter node names the node to look up (node=root).");
  }
  if (node.toLowerCase() !== "root") {
    throw new HttpFailure(404, message("NodeNotFound", `No node is named ${node.slice(0, 100)}.`));
  }
  ctx.reply.header("csrf-token", csrf(ctx.session?.token ?? ""));
  const modules = catalogueOf(ctx.store)
    .all("modules")
    .sort((a, b) => a.Id - b.Id)
    .map((module) => ({ Id: module.Id, Name: module.Name, Type: module.Type }));
  return { Node: "root", Children: modules };
}

export function registerWeb(routes: Routes): void {
  const csrf = csrfTokens();
  const web = { family: "root", integration: true } as const;
  routes.read("/", loginPage, { ...web, auth: false });
  routes.read("/api/V2/internal/LookUp", (ctx) => lookUp(ctx, csrf), { ...web, cookie: true });
}
