import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ok } from "./envelope.ts";
import { HttpFailure, message } from "./failure.ts";
import { prefersXml, toXml } from "./negotiate.ts";
import { applyODataQuery, type FieldKind, parseODataQuery, selectFields } from "./odata.ts";
import type { Session, Store } from "./store.ts";

/*
 * Routes are declared by segment modules against paths relative to the release's base path
 * (`/core/system/user`), then mounted under the prefixes the release serves:
 * - release >= 6.5: `/platformapi` for every route; routes of the `api-core` family (package,
 *   history, content delete, workflow action) also under `/api`, where the seed writes them;
 * - release < 6.5: `/api` only;
 * - `root` routes (the Content API, the web application's lookups, the base path) at the path
 *   itself, outside the REST base path.
 * With integrations on (the default), a release >= 6.5 serves every route under `/api` as well, as
 * current releases do; routes declared `integration` are mounted only then (docs/emulator.md,
 * "Beyond the interface description").
 *
 * Verb override: a POST carrying `X-Http-Method-Override: <VERB>` is dispatched as that verb. A
 * POST without it, on a path that only reads, is answered 405 with an envelope.
 *
 * OData: a collection declared with `list` honours the five options; a route that reads them itself
 * says so (`odata`); every other route answers a `$` option 400, never ignoring it.
 */

export type Method = "GET" | "POST" | "PUT" | "DELETE" | "PATCH";
export type Family = "platform" | "api-core" | "root";

export interface RouteContext {
  req: FastifyRequest;
  reply: FastifyReply;
  params: Record<string, string>;
  query: Record<string, string | string[] | undefined>;
  body: unknown;
  store: Store;
  /** The caller's session; routes declared with `auth: false` get none. */
  session: Session | undefined;
  /** Sets the HTTP status of a successful answer (default 200). */
  status(code: number): void;
}

/** A handler returns the payload to serialize, or `undefined` when it has sent a raw reply itself. */
export type Handler = (ctx: RouteContext) => unknown | Promise<unknown>;

export interface RouteOptions {
  family?: Family;
  /** Default true: the route needs a valid session. */
  auth?: boolean;
  /** Largest body, in bytes, when a route needs more than the emulator's `bodyLimit`. */
  bodyLimit?: number;
  /**
   * The handler reads the query's OData (`$`) options itself. Any other route answers them 400,
   * so that no option is ever silently ignored.
   */
  odata?: boolean;
  /** Served only with integrations on: a surface beyond the description that integrations use. */
  integration?: boolean;
  /** The session may also come from the session cookie, as the web application's calls send it. */
  cookie?: boolean;
}

interface Declared {
  method: Method;
  path: string;
  handler: Handler;
  options: Required<Omit<RouteOptions, "bodyLimit">> & Pick<RouteOptions, "bodyLimit">;
}

/** A row's field by name: list items are plain objects of wire resources. */
const fieldOf = (row: object, name: string): unknown => (row as Record<string, unknown>)[name];

export type Authenticate = (req: FastifyRequest, store: Store, cookie: boolean) => Session;

export interface MountOptions {
  /** Serve the routes declared `integration`, and every route under `/api` from 6.5. */
  integrations: boolean;
}

export class Routes {
  private readonly declared: Declared[] = [];

  private add(method: Method, path: string, handler: Handler, options: RouteOptions): void {
    this.declared.push({
      method,
      path,
      handler,
      options: {
        family: "platform",
        auth: true,
        odata: false,
        integration: false,
        cookie: false,
        ...options,
      },
    });
  }

  /** A read: answers a plain GET and a POST with the GET override. */
  read(path: string, handler: Handler, options: RouteOptions = {}): void {
    this.add("GET", path, handler, options);
  }

  /**
   * A read that answers a collection, one envelope per item, with the five OData options over the
   * items' fields (`fields`: name → kind), as the user list takes them.
   */
  list<T extends object>(
    path: string,
    rows: (ctx: RouteContext) => readonly T[],
    fields: Readonly<Record<string, FieldKind>>,
    options: RouteOptions = {},
  ): void {
    const handler = (ctx: RouteContext) => {
      // Parsed before the rows are read, so that a bad query is a 400 whatever the path's id names.
      const query = parseODataQuery(ctx.query, fields);
      return applyODataQuery(rows(ctx), query, fieldOf).map((row) => ok(selectFields(row, query, fieldOf)));
    };
    this.read(path, handler, { ...options, odata: true });
  }
  post(path: string, handler: Handler, options: RouteOptions = {}): void {
    this.add("POST", path, handler, options);
  }
  put(path: string, handler: Handler, options: RouteOptions = {}): void {
    this.add("PUT", path, handler, options);
  }
  delete(path: string, handler: Handler, options: RouteOptions = {}): void {
    this.add("DELETE", path, handler, options);
  }

  mount(
    app: FastifyInstance,
    release: string,
    store: Store,
    authenticate: Authenticate,
    { integrations }: MountOptions,
  ): void {
    const byPath = new Map<string, Map<Method, Declared>>();
    for (const route of this.declared) {
      if (route.options.integration && !integrations) continue;
      for (const prefix of prefixesFor(release, route.options.family, integrations)) {
        const url = `${prefix}${route.path}`;
        const methods = byPath.get(url) ?? new Map<Method, Declared>();
        if (methods.has(route.method)) throw new Error(`Route declared twice: ${route.method} ${url}`);
        methods.set(route.method, route);
        byPath.set(url, methods);
      }
    }
    for (const [url, methods] of byPath) {
      const bodyLimit = Math.max(0, ...[...methods.values()].map((route) => route.options.bodyLimit ?? 0));
      app.route({
        method: ["GET", "POST", "PUT", "DELETE", "PATCH"],
        url,
        ...(bodyLimit > 0 ? { bodyLimit } : {}),
        handler: (req, reply) => dispatch(req, reply, methods, store, authenticate),
      });
    }
  }
}

export function releaseAtLeast(release: string, major: number, minor: number): boolean {
  const [a = 0, b = 0] = release.split(".").map((part) => Number.parseInt(part, 10) || 0);
  return a > major || (a === major && b >= minor);
}

export function prefixesFor(release: string, family: Family, integrations = false): string[] {
  if (family === "root") return [""];
  if (!releaseAtLeast(release, 6, 5)) return ["/api"];
  return family === "api-core" || integrations ? ["/platformapi", "/api"] : ["/platformapi"];
}

function hasBody(req: FastifyRequest): boolean {
  const length = req.headers["content-length"];
  if (length !== undefined && length !== "0") return true;
  return req.headers["transfer-encoding"] !== undefined;
}

function effectiveMethod(req: FastifyRequest): Method {
  const override = req.headers["x-http-method-override"];
  const value = Array.isArray(override) ? override[0] : override;
  if (req.method === "POST" && value) return value.trim().toUpperCase() as Method;
  return req.method as Method;
}

async function dispatch(
  req: FastifyRequest,
  reply: FastifyReply,
  methods: Map<Method, Declared>,
  store: Store,
  authenticate: Authenticate,
): Promise<FastifyReply | undefined> {
  const method = effectiveMethod(req);
  if (req.method === "GET" && hasBody(req)) {
    throw new HttpFailure(
      400,
      message(
        "BodyNotSupportedOnGet",
        "A GET request cannot carry a body; send POST with X-Http-Method-Override: GET.",
      ),
    );
  }
  const route = methods.get(method);
  if (!route) {
    const readOnly = req.method === "POST" && method === "POST" && methods.has("GET");
    throw new HttpFailure(
      405,
      message(
        "MethodNotAllowed",
        readOnly
          ? "This resource is read with GET, or with POST and the header X-Http-Method-Override: GET."
          : `The method ${method} is not supported on this resource.`,
      ),
      { allow: [...methods.keys()].join(", ") },
    );
  }
  const session = route.options.auth ? authenticate(req, store, route.options.cookie) : undefined;
  const query = (req.query ?? {}) as Record<string, string | string[] | undefined>;
  if (!route.options.odata) parseODataQuery(query, [], { allow: [] });
  let statusCode = 200;
  const payload = await route.handler({
    req,
    reply,
    params: (req.params ?? {}) as Record<string, string>,
    query,
    body: req.body,
    store,
    session,
    status: (code) => {
      statusCode = code;
    },
  });
  // A handler that sent a raw reply (a stream) returns undefined: returning the reply tells fastify
  // the answer is on its way, so it does not send another.
  if (payload === undefined) return reply;
  sendPayload(reply.code(statusCode), payload);
  return reply;
}

/** Sends a payload as JSON, or as XML when the request's Accept header prefers XML. */
export function sendPayload(reply: FastifyReply, payload: unknown): FastifyReply {
  if (prefersXml(reply.request.headers.accept)) {
    return reply.type("application/xml; charset=utf-8").send(toXml(payload));
  }
  return reply.type("application/json; charset=utf-8").send(JSON.stringify(payload));
}
