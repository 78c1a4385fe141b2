import type { ValidationMessage } from "../wire/index.ts";

/** Builds one validation message in the shape real instances use. */
export function message(
  key: string,
  description: string,
  extra: { location?: number; erroredValue?: unknown; reason?: string } = {},
): ValidationMessage {
  return {
    Reason: extra.reason ?? "Validation",
    Severity: 3,
    MessageKey: key,
    Description: description,
    Location: extra.location ?? -1,
    ErroredValue: extra.erroredValue ?? null,
    Validator: null,
    XmlData: null,
    ResourcedMessage: description,
  };
}

/** Thrown by a route to answer with a non-success envelope. */
export class HttpFailure extends Error {
  readonly status: number;
  readonly messages: ValidationMessage[];
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    messages: ValidationMessage | ValidationMessage[],
    headers: Record<string, string> = {},
  ) {
    const list = Array.isArray(messages) ? messages : [messages];
    super(list.map((m) => m.Description).join("; "));
    this.name = "HttpFailure";
    this.status = status;
    this.messages = list;
    this.headers = headers;
  }
}

export function badRequest(key: string, description: string, erroredValue?: unknown): HttpFailure {
  return new HttpFailure(400, message(key, description, { erroredValue }));
}

export function notFound(what: string, id: unknown): HttpFailure {
  return new HttpFailure(
    404,
    message(`${what}NotFound`, `${what} ${String(id)} does not exist.`, { erroredValue: id }),
  );
}

export function forbidden(key: string, description: string): HttpFailure {
  return new HttpFailure(403, message(key, description, { reason: "Forbidden" }));
}
