import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, request, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/*
 * A stand-in for the authentication of GHCR, ACR, Harbor and Docker Hub in front of a real
 * registry: `basic` answers 401 with a Basic challenge until the right user and password come;
 * `bearer` answers 401 with the distribution specification's Bearer challenge and serves tokens at
 * `/token` to the right user and password. Requests it lets through are passed on unchanged
 * (without the Authorization header). `paginate` pages the tag list by `n` and `last` with a Link
 * header, as the distribution specification says and registry 3 and GHCR do (Debian's registry 2.8
 * ignores `n` for tags).
 */

export interface AuthProxy {
  host: string;
  /** What came in: method, path, and the scheme of its Authorization header (never its value). */
  seen: { method: string; path: string; scheme: string }[];
  /** The scopes the token endpoint was asked for. */
  scopes: string[];
  stop(): Promise<void>;
}

export interface AuthProxyOptions {
  upstream: string;
  mode: "none" | "basic" | "bearer";
  paginate?: boolean;
  /** Where the Link of the next page points (`http://host:port`), when not here. */
  linkOrigin?: string;
  username?: string;
  password?: string;
  /** Answer 403 with an `errors[]` envelope to pushes (POST/PUT): a pull-only account. */
  pullOnly?: boolean;
  /** Passing failures: the first `times` requests that match get `status` (and its Retry-After). */
  failures?: { method: string; path: RegExp; status: number; retryAfter?: string; times: number }[];
}

const basicOf = (username = "", password = "") =>
  `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`;

export async function startAuthProxy(options: AuthProxyOptions): Promise<AuthProxy> {
  const tokens = new Set<string>();
  const seen: AuthProxy["seen"] = [];
  const scopes: string[] = [];
  let host = "";
  const refuse = (response: ServerResponse, challenge: string) => {
    response.writeHead(401, { "www-authenticate": challenge, "content-type": "application/json" });
    response.end(JSON.stringify({ errors: [{ code: "UNAUTHORIZED", message: "authentication required" }] }));
  };
  const server = createServer((incoming: IncomingMessage, response: ServerResponse) => {
    const url = new URL(incoming.url ?? "/", `http://${host}`);
    const authorization = incoming.headers.authorization ?? "";
    seen.push({
      method: incoming.method ?? "",
      path: url.pathname,
      scheme: authorization.split(" ")[0] ?? "",
    });
    if (url.pathname === "/token") {
      scopes.push(url.searchParams.get("scope") ?? "");
      if (authorization !== basicOf(options.username, options.password)) {
        response.writeHead(401, { "content-type": "application/json" });
        response.end(JSON.stringify({ errors: [{ code: "UNAUTHORIZED", message: "bad credentials" }] }));
        return;
      }
      const token = randomBytes(12).toString("hex");
      tokens.add(token);
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ access_token: token, expires_in: 300 }));
      return;
    }
    const allowed =
      options.mode === "none" ||
      (options.mode === "basic"
        ? authorization === basicOf(options.username, options.password)
        : tokens.has(authorization.replace(/^Bearer /, "")));
    if (!allowed) {
      const scope = `repository:${url.pathname.split("/").slice(2, -2).join("/")}:pull,push`;
      refuse(
        response,
        options.mode === "basic"
          ? 'Basic realm="egp-test"'
          : `Bearer realm="http://${host}/token",service="egp-test",scope="${scope}"`,
      );
      return;
    }
    const failure = options.failures?.find(
      (rule) => rule.times > 0 && rule.method === incoming.method && rule.path.test(url.pathname),
    );
    if (failure) {
      failure.times -= 1;
      incoming.resume();
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (failure.retryAfter !== undefined) headers["retry-after"] = failure.retryAfter;
      response.writeHead(failure.status, headers);
      response.end(JSON.stringify({ errors: [{ code: "UNAVAILABLE", message: "try again" }] }));
      return;
    }
    if (options.pullOnly && (incoming.method === "POST" || incoming.method === "PUT")) {
      response.writeHead(403, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          errors: [{ code: "DENIED", message: "requested access to the resource is denied" }],
        }),
      );
      return;
    }
    if (options.paginate && incoming.method === "GET" && url.pathname.endsWith("/tags/list")) {
      void paginate(options.upstream, url, response, options.linkOrigin ?? "");
      return;
    }
    const headers = { ...incoming.headers };
    delete headers.authorization;
    const upstream = new URL(options.upstream);
    const forward = request(
      { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    forward.on("error", () => response.destroy());
    incoming.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    host,
    seen,
    scopes,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One page of the upstream's whole tag list: `n` tags after `last`, and a Link to the next page. */
async function paginate(upstream: string, url: URL, response: ServerResponse, origin: string): Promise<void> {
  const answer = await fetch(new URL(url.pathname, upstream));
  if (answer.status !== 200) {
    response.writeHead(answer.status, { "content-type": "application/json" });
    response.end(await answer.text());
    return;
  }
  const { name, tags } = (await answer.json()) as { name: string; tags: string[] };
  const n = Number(url.searchParams.get("n") ?? tags.length);
  const last = url.searchParams.get("last");
  const after = [...tags].sort().filter((tag) => last === null || tag > last);
  const page = after.slice(0, n);
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (after.length > n) headers.link = `<${origin}${url.pathname}?n=${n}&last=${page.at(-1)}>; rel="next"`;
  response.writeHead(200, headers);
  response.end(JSON.stringify({ name, tags: page }));
}
