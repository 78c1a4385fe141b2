import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import {
  type Answer,
  actionOf,
  type Dialect,
  faultAnswer,
  readEnvelope,
  readForm,
  resultAnswer,
  SoapFault,
} from "../soap/envelope.ts";
import { operationOf, SERVICES } from "../soap/operations.ts";
import type { Store } from "../store.ts";

/*
 * The web services real instances serve beside the REST interface, at `/ws/<service>.asmx` under
 * the instance's base address (not under a release's API prefix). They take SOAP 1.1, SOAP 1.2 and
 * the HTTP-form variant (`/ws/<service>.asmx/<Operation>`), and every failure is a SOAP fault with
 * HTTP 500, as ASMX answers it. The content parsers are scoped to these routes, so the REST routes
 * still refuse XML bodies with 415.
 */

/** SOAP bodies are small: tokens, ids and a search document. */
const BODY_LIMIT = 1024 * 1024;

function dialectOf(req: FastifyRequest, form: boolean): Dialect {
  if (form) return "form";
  return /application\/soap\+xml/i.test(req.headers["content-type"] ?? "") ? "soap12" : "soap11";
}

function send(reply: FastifyReply, answer: Answer): FastifyReply {
  return reply.code(answer.status).type(answer.contentType).send(answer.body);
}

function answerCall(store: Store, service: string, req: FastifyRequest, operationInPath?: string): Answer {
  const form = operationInPath !== undefined;
  try {
    const body = req.body;
    if (form && (typeof body !== "object" || body === null)) {
      throw new SoapFault("Request format is invalid: send the parameters as form fields.", { client: true });
    }
    if (!form && typeof body !== "string") {
      throw new SoapFault("Send a SOAP envelope as text/xml or application/soap+xml.", { client: true });
    }
    const call = form
      ? readForm(operationInPath, formFields(body as Record<string, unknown>))
      : readEnvelope(body as string, actionOf(header(req, "soapaction"), req.headers["content-type"]));
    const found = operationOf(service, call.operation);
    if (!found) {
      const text = form
        ? `Request format is unrecognized for URL unexpectedly ending in '/${call.operation}'.`
        : `Server did not recognize the value of HTTP Header SOAPAction: ${call.operation}.`;
      throw new SoapFault(text, { client: true });
    }
    const [name, operation] = found;
    return resultAnswer({ ...call, operation: name }, operation(call, store));
  } catch (error) {
    if (error instanceof SoapFault) return faultAnswer(dialectOf(req, form), error);
    throw error;
  }
}

/**
 * The parameters of a call to `<service>.asmx/<Operation>`, as text: form fields are text already;
 * a JSON object's numbers and booleans (`"pageNumber": 1`, as clients that post JSON send them) are
 * the same text a form would carry. Anything else is a request the binding can't read.
 */
function formFields(body: Record<string, unknown>): Record<string, string> {
  const fields: Record<string, string> = Object.create(null);
  for (const [key, value] of Object.entries(body)) {
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
      fields[key] = String(value);
      continue;
    }
    throw new SoapFault(`Request format is invalid: parameter ${key.slice(0, 100)} is not text.`, {
      client: true,
    });
  }
  return fields;
}

function header(req: FastifyRequest, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function registerWebServices(app: FastifyInstance, store: Store): void {
  app.register(async (scope) => {
    scope.addContentTypeParser(
      ["text/xml", "application/soap+xml", "application/xml"],
      { parseAs: "string", bodyLimit: BODY_LIMIT },
      (_req, text, done) => done(null, String(text)),
    );
    scope.addContentTypeParser(
      "application/x-www-form-urlencoded",
      { parseAs: "string", bodyLimit: BODY_LIMIT },
      (_req, text, done) => {
        const fields: Record<string, string> = Object.create(null);
        for (const [key, value] of new URLSearchParams(String(text))) fields[key] ??= value;
        done(null, fields);
      },
    );
    // A body too large or of another media type is answered as the service answers, with a fault.
    scope.setErrorHandler((error: Error & { statusCode?: number }, req, reply) => {
      const form = /\.asmx\/[^/?]+/i.test(req.url);
      const status = error.statusCode ?? 500;
      if (status >= 500) throw error;
      return send(reply, faultAnswer(dialectOf(req, form), new SoapFault(error.message, { client: true })));
    });
    for (const service of Object.keys(SERVICES)) {
      const path = `/ws/${service}.asmx`;
      scope.post(path, { bodyLimit: BODY_LIMIT }, (req, reply) =>
        send(reply, answerCall(store, service, req)),
      );
      scope.post<{ Params: { operation: string } }>(
        `${path}/:operation`,
        { bodyLimit: BODY_LIMIT },
        (req, reply) => send(reply, answerCall(store, service, req, req.params.operation)),
      );
    }
  });
}
