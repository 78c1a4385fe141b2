import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { HttpFailure, message } from "./failure.ts";
import { prefersXml, toXml } from "./negotiate.ts";
import type { Session, Store } from "./store.ts";

/*
 * Routes are declared by segment modules against paths relative to the release's base path
 * (`/core/system/user`), then mounted under the prefixes the release serves:
 * - release >= 6.5: `/platformapi` for every route; routes of the `api-core` family (package,
 *   history, content delete, workflow action) also under `/api`, where the seed writes them;
 * - release < 6.5: `/api` only.
 *
 * Verb override: a POST carrying `X-Http-Method-Override: <VERB>` is dispatched as that verb. A
 * POST without it, on a path that only reads, is answered 405 with an envelope.
 */

export type Method = "GET" | "POST" | "PUT" | "DELETE" | "PATCH";
export type Family = "platform" | "api-core";

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
}

interface Declared {
  method: Method;
  path: string;
  handler: Handler;
  options: Required<Omit<RouteOptions, "bodyLimit">> & Pick<RouteOptions, "bodyLimit">;
}

export type Authenticate = (req: FastifyRequest, store: Store) => Session;

export class Routes {
  private readonly declared: Declared[] = [];

  private add(method: Method, path: string, handler: Handler, options: RouteOptions): void {
    this.declared.push({ method, path, handler, options: { family: "platform", auth: true, ...options } });
  }

  /** A read: answers a plain GET and a POST with the GET override. */
  read(path: string, handler: Handler, options: RouteOptions = {}): void {
    this.add("GET", path, handler, options);
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

  mount(app: FastifyInstance, release: string, store: Store, authenticate: Authenticate): void {
    const byPath = new Map<string, Map<Method, Declared>>();
    for (const route of this.declared) {
      for (const prefix of prefixesFor(release, route.options.family)) {
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

export function prefixesFor(release: string, family: Family): string[] {
  if (!releaseAtLeast(release, 6, 5)) return ["/api"];
  return family === "api-core" ? ["/platformapi", "/api"] : ["/platformapi"];
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
  const session = route.options.auth ? authenticate(req, store) : undefined;
  let statusCode = 200;
  const payload = await route.handler({
    req,
    reply,
    params: (req.params ?? {}) as Record<string, string>,
    query: (req.query ?? {}) as Record<string, string | string[] | undefined>,
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
