/*
 * A small, strict XML reader for the bodies of SOAP requests and the search documents inside them.
 * It reads elements, attributes, character data and CDATA with namespaces, and refuses what it does
 * not need: a DOCTYPE (so there is no entity to expand, internal or external), any entity but the
 * five predefined ones and character references, unbalanced or duplicate markup. Sizes, depth and
 * counts are bounded, and it never recurses, so a hostile body costs at most its bounded length.
 */

export interface XmlElement {
  /** The local name, without its prefix. */
  local: string;
  /** The namespace URI, or "" when the element is in no namespace. */
  ns: string;
  /** Attributes by qualified name as written (namespace declarations left out). */
  attributes: Record<string, string>;
  children: XmlElement[];
  /** The character data and CDATA directly inside the element, in order. */
  text: string;
}

export interface XmlLimits {
  /** Characters of the document. */
  maxChars: number;
  /** Elements open at once. */
  maxDepth: number;
  maxElements: number;
  maxAttributes: number;
}

export const DEFAULT_XML_LIMITS: XmlLimits = {
  maxChars: 1024 * 1024,
  maxDepth: 64,
  maxElements: 20_000,
  maxAttributes: 64,
};

export class XmlError extends Error {
  constructor(description: string, at: number) {
    super(`${description} (at character ${at})`);
    this.name = "XmlError";
  }
}

const NAME =
  /[A-Za-z_\u00C0-\uFFEF][A-Za-z0-9_.\u00B7-\uFFEF-]*(?::[A-Za-z_\u00C0-\uFFEF][A-Za-z0-9_.\u00B7-\uFFEF-]*)?/y;
const SPACE = /[ \t\r\n]*/y;
const PREDEFINED: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };
const XML_NS = "http://www.w3.org/XML/1998/namespace";

/** Replaces entity and character references; anything else after `&` is an error. */
export function decodeEntities(raw: string, at = 0): string {
  if (!raw.includes("&")) return raw;
  return raw.replace(/&([^;&\s]{0,12});?/g, (whole, name: string, offset: number) => {
    if (!whole.endsWith(";")) throw new XmlError("an '&' that starts no reference", at + offset);
    const predefined = Object.hasOwn(PREDEFINED, name) ? PREDEFINED[name] : undefined;
    if (predefined !== undefined) return predefined;
    const numeric = /^#(?:x([0-9A-Fa-f]{1,6})|([0-9]{1,7}))$/.exec(name);
    // The reference is not quoted: it may be part of a password.
    if (!numeric) throw new XmlError("an entity other than the five predefined ones", at + offset);
    const code = numeric[1] !== undefined ? Number.parseInt(numeric[1], 16) : Number(numeric[2]);
    const allowed =
      code === 0x9 ||
      code === 0xa ||
      code === 0xd ||
      (code >= 0x20 && code <= 0xd7ff) ||
      (code >= 0xe000 && code <= 0xfffd) ||
      (code >= 0x10000 && code <= 0x10ffff);
    if (!allowed) throw new XmlError("a character reference to no character", at + offset);
    return String.fromCodePoint(code);
  });
}

interface Open {
  element: XmlElement;
  qname: string;
  scope: Map<string, string>;
}

class Reader {
  private at = 0;
  private elements = 0;
  private readonly source: string;
  private readonly limits: XmlLimits;

  constructor(source: string, limits: XmlLimits) {
    this.source = source;
    this.limits = limits;
  }

  fail(description: string): never {
    throw new XmlError(description, this.at);
  }

  private startsWith(token: string): boolean {
    return this.source.startsWith(token, this.at);
  }

  private skipSpace(): void {
    SPACE.lastIndex = this.at;
    SPACE.exec(this.source);
    this.at = SPACE.lastIndex;
  }

  private name(): string {
    NAME.lastIndex = this.at;
    const match = NAME.exec(this.source);
    if (!match) this.fail("a name was expected");
    this.at = NAME.lastIndex;
    return match[0];
  }

  /** Skips up to and past `end`, returning what was between. */
  private until(end: string, what: string): string {
    const stop = this.source.indexOf(end, this.at);
    if (stop < 0) this.fail(`an unterminated ${what}`);
    const inner = this.source.slice(this.at, stop);
    this.at = stop + end.length;
    return inner;
  }

  /** Skips one comment or processing instruction at the cursor; false when there is none. */
  private skipCommentOrInstruction(): boolean {
    if (this.startsWith("<!--")) {
      this.at += 4;
      this.until("-->", "comment");
      return true;
    }
    if (!this.startsWith("<?")) return false;
    this.at += 2;
    this.until("?>", "processing instruction");
    return true;
  }

  /** Comments, processing instructions (the XML declaration too) and space outside the root. */
  private skipMisc(): void {
    for (;;) {
      this.skipSpace();
      if (this.skipCommentOrInstruction()) continue;
      if (this.startsWith("<!")) this.fail("a DOCTYPE or other declaration is not accepted");
      return;
    }
  }

  parse(): XmlElement {
    if (this.source.length > this.limits.maxChars) {
      this.fail(`the document is longer than ${this.limits.maxChars} characters`);
    }
    if (this.source.charCodeAt(0) === 0xfeff) this.at = 1;
    this.skipMisc();
    if (!this.startsWith("<")) this.fail("the document has no root element");
    const root = this.elementTree();
    this.skipMisc();
    if (this.at !== this.source.length) this.fail("content after the root element");
    return root;
  }

  private startTag(parentScope: Map<string, string>): { open: Open; empty: boolean } {
    this.at += 1;
    const qname = this.name();
    const raw: Array<[string, string]> = [];
    for (;;) {
      const before = this.at;
      this.skipSpace();
      if (this.startsWith("/>") || this.startsWith(">")) break;
      if (this.at === before) this.fail("space was expected between attributes");
      const name = this.name();
      this.skipSpace();
      if (this.source[this.at] !== "=") this.fail(`'=' was expected after the attribute ${name}`);
      this.at += 1;
      this.skipSpace();
      const quote = this.source[this.at];
      if (quote !== '"' && quote !== "'") this.fail(`the value of the attribute ${name} must be quoted`);
      this.at += 1;
      const valueAt = this.at;
      const value = this.until(quote, "attribute value");
      if (value.includes("<")) throw new XmlError("'<' inside an attribute value", valueAt);
      if (raw.some(([known]) => known === name)) this.fail(`the attribute ${name} is given twice`);
      raw.push([name, decodeEntities(value, valueAt)]);
      if (raw.length > this.limits.maxAttributes) this.fail("too many attributes on one element");
    }
    const empty = this.startsWith("/>");
    this.at += empty ? 2 : 1;
    const scope = new Map(parentScope);
    const attributes: Record<string, string> = Object.create(null);
    for (const [name, value] of raw) {
      if (name === "xmlns") scope.set("", value);
      else if (name.startsWith("xmlns:")) scope.set(name.slice(6), value);
      else attributes[name] = value;
    }
    const colon = qname.indexOf(":");
    const prefix = colon < 0 ? "" : qname.slice(0, colon);
    const ns = scope.get(prefix);
    if (ns === undefined && prefix !== "") this.fail(`the prefix '${prefix}' is not declared`);
    this.elements += 1;
    if (this.elements > this.limits.maxElements) this.fail("too many elements");
    const element: XmlElement = {
      local: colon < 0 ? qname : qname.slice(colon + 1),
      ns: ns ?? "",
      attributes,
      children: [],
      text: "",
    };
    return { open: { element, qname, scope }, empty };
  }

  /** The root element and everything inside it, with an explicit stack. */
  private elementTree(): XmlElement {
    const base = new Map([["xml", XML_NS]]);
    const first = this.startTag(base);
    if (first.empty) return first.open.element;
    const stack: Open[] = [first.open];
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as Open;
      const next = this.source.indexOf("<", this.at);
      if (next < 0) this.fail(`the element ${top.qname} is not closed`);
      if (next > this.at) {
        const text = this.source.slice(this.at, next);
        if (text.includes("]]>")) this.fail("']]>' in character data");
        top.element.text += decodeEntities(text, this.at);
        this.at = next;
      }
      if (this.startsWith("</")) {
        this.at += 2;
        const name = this.name();
        if (name !== top.qname) this.fail(`</${name}> closes <${top.qname}>`);
        this.skipSpace();
        if (this.source[this.at] !== ">") this.fail("'>' was expected");
        this.at += 1;
        stack.pop();
        const parent = stack[stack.length - 1];
        if (parent) parent.element.children.push(top.element);
        else return top.element;
      } else if (this.startsWith("<![CDATA[")) {
        this.at += 9;
        top.element.text += this.until("]]>", "CDATA section");
      } else if (this.skipCommentOrInstruction()) {
        // Nothing of a comment or an instruction is kept.
      } else if (this.startsWith("<!")) {
        this.fail("a declaration inside an element is not accepted");
      } else {
        const { open, empty } = this.startTag(top.scope);
        if (empty) top.element.children.push(open.element);
        else {
          if (stack.length >= this.limits.maxDepth) this.fail("the elements nest too deeply");
          stack.push(open);
        }
      }
    }
    return this.fail("the document ended early");
  }
}

export function parseXml(source: string, limits: Partial<XmlLimits> = {}): XmlElement {
  return new Reader(source, { ...DEFAULT_XML_LIMITS, ...limits }).parse();
}

/** The first child with this local name, compared case-insensitively. */
export function child(element: XmlElement, local: string): XmlElement | undefined {
  const wanted = local.toLowerCase();
  return element.children.find((c) => c.local.toLowerCase() === wanted);
}

/** Every child with this local name, compared case-insensitively. */
export function childrenNamed(element: XmlElement, local: string): XmlElement[] {
  const wanted = local.toLowerCase();
  return element.children.filter((c) => c.local.toLowerCase() === wanted);
}

/** An attribute by local name (any prefix), compared case-insensitively. */
export function attribute(element: XmlElement, local: string): string | undefined {
  const wanted = local.toLowerCase();
  for (const [name, value] of Object.entries(element.attributes)) {
    const bare = name.includes(":") ? name.slice(name.indexOf(":") + 1) : name;
    if (bare.toLowerCase() === wanted) return value;
  }
  return undefined;
}

/** XML 1.0 has no way to write C0 controls other than tab and line ends, nor U+FFFE/U+FFFF. */
function unwritable(code: number): boolean {
  return (code < 0x20 && code !== 0x9 && code !== 0xa && code !== 0xd) || code === 0xfffe || code === 0xffff;
}

function writable(text: string): string {
  let clean = true;
  for (let i = 0; i < text.length && clean; i += 1) clean = !unwritable(text.charCodeAt(i));
  if (clean) return text;
  let out = "";
  for (const char of text) out += unwritable(char.charCodeAt(0)) ? "\uFFFD" : char;
  return out;
}

/** Escapes text for an element's content or a double-quoted attribute. */
export function escapeXml(text: string): string {
  return writable(text)
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;")
    .replace(/\r/g, "&#13;");
}

/** Escapes an attribute's value; a reader would turn raw tabs and line ends in it into spaces. */
function escapeAttribute(text: string): string {
  return escapeXml(text).replace(/\t/g, "&#9;").replace(/\n/g, "&#10;");
}

/** Builds `<name a="…">content</name>`; `content` is markup already (escape text first). */
export function tag(name: string, attributes: Record<string, string | number>, content = ""): string {
  const attrs = Object.entries(attributes)
    .map(([key, value]) => ` ${key}="${escapeAttribute(String(value))}"`)
    .join("");
  return content === "" ? `<${name}${attrs} />` : `<${name}${attrs}>${content}</${name}>`;
}
