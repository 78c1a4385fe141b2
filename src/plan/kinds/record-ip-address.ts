import type { RecordFieldValue } from "../../manifest/kinds/record.ts";
import type { Resolved, ValueProblem } from "./record-value-base.ts";

/*
 * An IP address field: written as a string, an IPv4 address in dotted decimal or an IPv6 address.
 * IPv6 addresses compare in their canonical form (`2001:db8::1` is `2001:0db8:0:0:0:0:0:1`), so that
 * a spelling the instance keeps otherwise is no change.
 */

const OCTET = "(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
const IPV4 = new RegExp(`^${OCTET}(\\.${OCTET}){3}$`);

/** The address in the form it compares in, or undefined when it is no IP address. */
export function canonicalAddress(text: string): string | undefined {
  if (IPV4.test(text)) return text;
  if (!text.includes(":") || /[[\]/%]/.test(text)) return undefined;
  // The URL parser knows IPv6's forms and writes the canonical one.
  const url = URL.parse(`http://[${text}]/`);
  return url ? url.hostname.slice(1, -1) : undefined;
}

export function resolveIpAddress(desired: RecordFieldValue, live: unknown): Resolved | ValueProblem {
  const before = typeof live === "string" && live !== "" ? live : null;
  if (desired === null) return { wire: null, same: before === null, before };
  const text = typeof desired === "string" ? desired.trim() : undefined;
  const canonical = text === undefined ? undefined : canonicalAddress(text);
  if (text === undefined || canonical === undefined)
    return {
      problem: "invalid",
      message: `an IP address field takes an IPv4 or IPv6 address${text === undefined ? "" : `, not "${text}"`}`,
    };
  const current = before === null ? undefined : canonicalAddress(before.trim());
  return { wire: text, same: current === canonical, before };
}
