import XMLBuilder from "fast-xml-builder";

/*
 * JSON is the default. XML is chosen only when the Accept header prefers it: a higher q-value, or
 * an equal q-value listed first. Browser-style lists and odd spacing are tolerated.
 */
export function prefersXml(accept: string | undefined): boolean {
  if (!accept) return false;
  let best: { xml: boolean; q: number; index: number } | undefined;
  accept.split(",").forEach((part, index) => {
    const [rawType = "", ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    const xml = rawType === "application/xml" || rawType === "text/xml";
    const json = rawType === "application/json" || rawType === "text/json";
    if (!xml && !json) return;
    const qParam = params.find((p) => p.replace(/\s+/g, "").startsWith("q="));
    const q = qParam ? Number(qParam.split("=")[1]) : 1;
    if (!Number.isFinite(q) || q <= 0) return;
    if (!best || q > best.q) best = { xml, q, index };
  });
  return best?.xml ?? false;
}

const builder = new XMLBuilder({ ignoreAttributes: true, format: false, suppressEmptyNode: true });

const XML_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/**
 * Wraps arrays in `<Item>` elements, the way the platform's XML serializer nests collections. A map
 * whose keys can't be element names (field ids in `FieldContents`) becomes `<KeyValue>` pairs, as
 * .NET writes a dictionary.
 */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return { Item: value.map(shape) };
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value);
    if (entries.some(([key]) => !XML_NAME.test(key))) {
      return { KeyValue: entries.map(([key, inner]) => ({ Key: key, Value: shape(inner) })) };
    }
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) out[key] = shape(inner);
    return out;
  }
  if (value === null || value === undefined) return "";
  return value;
}

/** Serializes a payload (an envelope or an array of envelopes) to XML. */
export function toXml(payload: unknown): string {
  const root = Array.isArray(payload)
    ? { ArrayOfResponseEnvelope: { ResponseEnvelope: payload.map(shape) } }
    : { ResponseEnvelope: shape(payload) };
  return `<?xml version="1.0" encoding="utf-8"?>${builder.build(root)}`;
}
