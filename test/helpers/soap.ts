import { request } from "undici";
import { expect } from "vitest";
import { parseXml, type XmlElement } from "../../src/emulator/soap/xml.ts";

/*
 * Calls of the web services (`/ws/<service>.asmx`) as public clients send them, for tests of the
 * emulator over real HTTP.
 */

export const SERVICE_NS = "http://archer-tech.com/webservices/";
export const SOAP11 = "http://schemas.xmlsoap.org/soap/envelope/";
export const SOAP12 = "http://www.w3.org/2003/05/soap-envelope";

export const escapeText = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

const paramsXml = (params: Record<string, string>) =>
  Object.entries(params)
    .map(([k, v]) => `<${k}>${escapeText(v)}</${k}>`)
    .join("");

/** A SOAP 1.1 envelope; `raw` is markup appended to the parameters as is (a CDATA section). */
export function envelope11(operation: string, params: Record<string, string>, raw = ""): string {
  return (
    '<?xml version="1.0" encoding="utf-8"?>' +
    `<soap:Envelope xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:soap="${SOAP11}">` +
    `<soap:Body><${operation} xmlns="${SERVICE_NS}">${paramsXml(params)}${raw}</${operation}></soap:Body></soap:Envelope>`
  );
}

export function envelope12(operation: string, params: Record<string, string>): string {
  return (
    '<?xml version="1.0" encoding="utf-8"?>' +
    `<soap12:Envelope xmlns:soap12="${SOAP12}"><soap12:Body>` +
    `<${operation} xmlns="${SERVICE_NS}">${paramsXml(params)}</${operation}></soap12:Body></soap12:Envelope>`
  );
}

export interface SoapAnswer {
  status: number;
  contentType: string;
  text: string;
}

export async function post(url: string, body: string, headers: Record<string, string>): Promise<SoapAnswer> {
  const response = await request(url, { method: "POST", headers, body });
  return {
    status: response.statusCode,
    contentType: String(response.headers["content-type"]),
    text: await response.body.text(),
  };
}

/** A SOAP 1.1 call with its SOAPAction header, as public clients send it. */
export function soap11(
  base: string,
  service: string,
  operation: string,
  params: Record<string, string>,
  raw = "",
): Promise<SoapAnswer> {
  return post(`${base}/ws/${service}.asmx`, envelope11(operation, params, raw), {
    "content-type": "text/xml; charset=utf-8",
    soapaction: `"${SERVICE_NS}${operation}"`,
  });
}

/** The first element with this local name, anywhere below `root`. */
export function find(root: XmlElement, local: string): XmlElement | undefined {
  if (root.local === local) return root;
  for (const child of root.children) {
    const found = find(child, local);
    if (found) return found;
  }
  return undefined;
}

export function all(root: XmlElement, local: string): XmlElement[] {
  return [...(root.local === local ? [root] : []), ...root.children.flatMap((c) => all(c, local))];
}

/** The text of `<Operation>Result>` of an answer that must have succeeded. */
export async function resultOf(answer: Promise<SoapAnswer>, operation: string): Promise<string> {
  const got = await answer;
  expect(got.status, got.text).toBe(200);
  const element = find(parseXml(got.text), `${operation}Result`);
  expect(element?.ns).toBe(SERVICE_NS);
  return element?.text ?? "";
}
