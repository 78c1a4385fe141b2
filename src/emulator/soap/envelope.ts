import { child, escapeXml, parseXml, type XmlElement, XmlError } from "./xml.ts";

/*
 * The three ways an ASMX web service is called, as real instances answer them:
 * - SOAP 1.1: `Content-Type: text/xml`, the operation named by the `SOAPAction` header;
 * - SOAP 1.2: `Content-Type: application/soap+xml; action="…"` (the action is optional);
 * - HTTP form: `POST /ws/<service>.asmx/<Operation>` with form fields, answered by a bare
 *   `<string>` (or other type) element.
 * The envelope's namespace decides the version of the answer; the operation is the first element
 * of the body, whose children are the parameters.
 */

export const SERVICE_NS = "http://archer-tech.com/webservices/";
const SOAP11_NS = "http://schemas.xmlsoap.org/soap/envelope/";
const SOAP12_NS = "http://www.w3.org/2003/05/soap-envelope";

export type Dialect = "soap11" | "soap12" | "form";

/** A request's operation and parameters (each an element, so a parameter may hold markup). */
export interface WebServiceCall {
  dialect: Dialect;
  operation: string;
  params: XmlElement[];
}

/** A failure answered as a SOAP fault; `client` marks a bad request rather than a server failure. */
export class SoapFault extends Error {
  readonly client: boolean;
  constructor(description: string, options: { client?: boolean } = {}) {
    super(description);
    this.name = "SoapFault";
    this.client = options.client ?? false;
  }
}

/** The operation a SOAPAction header or a SOAP 1.2 `action` parameter names (its last segment). */
export function actionOf(header: string | undefined, contentType: string | undefined): string | undefined {
  const fromContentType = /;\s*action\s*=\s*"?([^";]*)"?/i.exec(contentType ?? "")?.[1];
  const raw = (header ?? fromContentType ?? "").trim().replace(/^"|"$/g, "");
  if (raw === "") return undefined;
  return raw.slice(raw.lastIndexOf("/") + 1);
}

/** Reads a SOAP envelope; the action, when sent, must name the body's operation. */
export function readEnvelope(body: string, action: string | undefined): WebServiceCall {
  let root: XmlElement;
  try {
    root = parseXml(body);
  } catch (error) {
    if (error instanceof XmlError)
      throw new SoapFault(`The request is not valid XML: ${error.message}`, { client: true });
    throw error;
  }
  const dialect = root.ns === SOAP12_NS ? "soap12" : root.ns === SOAP11_NS ? "soap11" : undefined;
  if (root.local !== "Envelope" || !dialect) {
    throw new SoapFault("The request is not a SOAP 1.1 or 1.2 envelope.", { client: true });
  }
  const soapBody = root.children.find((c) => c.local === "Body" && c.ns === root.ns);
  const operation = soapBody?.children[0];
  if (!operation) throw new SoapFault("The SOAP body names no operation.", { client: true });
  if (action !== undefined && action !== operation.local) {
    throw new SoapFault(`Server did not recognize the value of HTTP Header SOAPAction: ${action}.`, {
      client: true,
    });
  }
  return { dialect, operation: operation.local, params: operation.children };
}

/** Reads the HTTP-form variant: every field is a parameter holding text. */
export function readForm(operation: string, fields: Record<string, string>): WebServiceCall {
  const params = Object.entries(fields).map(([local, text]) => ({
    local,
    ns: "",
    attributes: {},
    children: [],
    text,
  }));
  return { dialect: "form", operation, params };
}

/** A parameter by name (compared case-insensitively), trimmed; undefined when absent. */
export function param(call: WebServiceCall, name: string): string | undefined {
  const found = call.params.find((p) => p.local.toLowerCase() === name.toLowerCase());
  return found?.text.trim();
}

/** A parameter that must be present and non-empty. */
export function required(call: WebServiceCall, name: string): string {
  const value = param(call, name);
  if (value === undefined || value === "") {
    throw new SoapFault(`Value cannot be null. Parameter name: ${name}`, { client: true });
  }
  return value;
}

/** The element of a parameter that holds markup rather than text (a search document sent unescaped). */
export function paramElement(call: WebServiceCall, name: string, inner: string): XmlElement | undefined {
  const found = call.params.find((p) => p.local.toLowerCase() === name.toLowerCase());
  return found ? child(found, inner) : undefined;
}

export interface Answer {
  status: number;
  contentType: string;
  body: string;
}

const DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';
const SCHEMA_NS =
  'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"';

function envelope(dialect: "soap11" | "soap12", inner: string): string {
  const ns = dialect === "soap12" ? SOAP12_NS : SOAP11_NS;
  return `${DECLARATION}<soap:Envelope xmlns:soap="${ns}" ${SCHEMA_NS}><soap:Body>${inner}</soap:Body></soap:Envelope>`;
}

function contentTypeOf(dialect: Dialect): string {
  return dialect === "soap12" ? "application/soap+xml; charset=utf-8" : "text/xml; charset=utf-8";
}

/** The answer of an operation whose result is text (a token, or an XML document as a string). */
export function resultAnswer(call: WebServiceCall, result: string, type = "string"): Answer {
  const text = escapeXml(result);
  const contentType = contentTypeOf(call.dialect);
  if (call.dialect === "form") {
    return {
      status: 200,
      contentType,
      body: `${DECLARATION}<${type} xmlns="${SERVICE_NS}">${text}</${type}>`,
    };
  }
  const name = call.operation;
  const inner = `<${name}Response xmlns="${SERVICE_NS}"><${name}Result>${text}</${name}Result></${name}Response>`;
  return { status: 200, contentType, body: envelope(call.dialect, inner) };
}

/**
 * A fault, HTTP 500 as ASMX answers every fault. The text starts as ASMX words an exception that
 * an operation threw, which clients match ("Invalid session token").
 */
export function faultAnswer(dialect: Dialect, fault: SoapFault): Answer {
  const reason = fault.client ? fault.message : `Server was unable to process request. ---> ${fault.message}`;
  if (dialect === "form") return { status: 500, contentType: "text/plain; charset=utf-8", body: reason };
  const text = escapeXml(reason);
  const inner =
    dialect === "soap12"
      ? `<soap:Fault><soap:Code><soap:Value>soap:${fault.client ? "Sender" : "Receiver"}</soap:Value></soap:Code>` +
        `<soap:Reason><soap:Text xml:lang="en">${text}</soap:Text></soap:Reason><soap:Detail /></soap:Fault>`
      : `<soap:Fault><faultcode>soap:${fault.client ? "Client" : "Server"}</faultcode>` +
        `<faultstring>${text}</faultstring><detail /></soap:Fault>`;
  return { status: 500, contentType: contentTypeOf(dialect), body: envelope(dialect, inner) };
}
