/*
 * GitHub Actions expressions (`${{ … }}`), the subset the project's workflows use: contexts and
 * their properties, string literals, `!`, `==`, `!=`, `&&`, `||`, parentheses, and the functions
 * toJSON, fromJSON, startsWith, format, success, failure, cancelled and always. Anything else
 * throws, so that a workflow written beyond it fails a test instead of being half understood.
 */

export type Value = string | number | boolean | null | Value[] | { [key: string]: Value };

export interface Contexts {
  [context: string]: Value;
}

export interface Status {
  failed: boolean;
}

type Token = { kind: "string" | "name" | "op"; text: string };

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const rest = source.slice(i);
    const space = /^\s+/.exec(rest);
    if (space) {
      i += space[0].length;
      continue;
    }
    const string = /^'((?:[^']|'')*)'/.exec(rest);
    if (string) {
      tokens.push({ kind: "string", text: (string[1] as string).replace(/''/g, "'") });
      i += string[0].length;
      continue;
    }
    const op = /^(\|\||&&|==|!=|[!().,])/.exec(rest);
    if (op) {
      tokens.push({ kind: "op", text: op[0] });
      i += op[0].length;
      continue;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(rest);
    if (!name) throw new Error(`expression ${JSON.stringify(source)}: cannot read ${JSON.stringify(rest)}`);
    tokens.push({ kind: "name", text: name[0] });
    i += name[0].length;
  }
  return tokens;
}

const truthy = (value: Value): boolean => value !== "" && value !== null && value !== false && value !== 0;

function text(value: Value): string {
  if (value === null) return "";
  if (typeof value === "object") return JSON.stringify(value, null, 2);
  return String(value);
}

class Parser {
  private at = 0;
  private readonly source: string;
  private readonly tokens: Token[];
  private readonly contexts: Contexts;
  private readonly status: Status;

  constructor(source: string, tokens: Token[], contexts: Contexts, status: Status) {
    this.source = source;
    this.tokens = tokens;
    this.contexts = contexts;
    this.status = status;
  }

  parse(): Value {
    const value = this.or();
    if (this.at < this.tokens.length) this.fail(`unexpected ${this.tokens[this.at]?.text}`);
    return value;
  }

  private fail(message: string): never {
    throw new Error(`expression ${JSON.stringify(this.source)}: ${message}`);
  }

  private peek(text: string): boolean {
    return this.tokens[this.at]?.kind === "op" && this.tokens[this.at]?.text === text;
  }

  private take(text: string): void {
    if (!this.peek(text)) this.fail(`expected ${text}`);
    this.at += 1;
  }

  private or(): Value {
    let value = this.and();
    while (this.peek("||")) {
      this.at += 1;
      const right = this.and();
      value = truthy(value) ? value : right;
    }
    return value;
  }

  private and(): Value {
    let value = this.equality();
    while (this.peek("&&")) {
      this.at += 1;
      const right = this.equality();
      value = truthy(value) ? right : value;
    }
    return value;
  }

  private equality(): Value {
    const left = this.unary();
    for (const op of ["==", "!="]) {
      if (!this.peek(op)) continue;
      this.at += 1;
      const right = this.unary();
      const same = text(left).toLowerCase() === text(right).toLowerCase();
      return op === "==" ? same : !same;
    }
    return left;
  }

  private unary(): Value {
    if (this.peek("!")) {
      this.at += 1;
      return !truthy(this.unary());
    }
    let value = this.primary();
    while (this.peek(".")) {
      this.at += 1;
      const name = this.tokens[this.at++];
      if (name?.kind !== "name") this.fail("expected a property name");
      value =
        value !== null && typeof value === "object" && !Array.isArray(value)
          ? (value[name.text] ?? null)
          : null;
    }
    return value;
  }

  private primary(): Value {
    const token = this.tokens[this.at++];
    if (!token) this.fail("unexpected end");
    if (token.kind === "string") return token.text;
    if (token.kind === "op" && token.text === "(") {
      const value = this.or();
      this.take(")");
      return value;
    }
    if (token.kind !== "name") this.fail(`unexpected ${token.text}`);
    if (this.peek("(")) return this.call(token.text);
    if (token.text === "true" || token.text === "false") return token.text === "true";
    if (!(token.text in this.contexts)) this.fail(`the context ${token.text} is not known here`);
    return this.contexts[token.text] as Value;
  }

  private call(name: string): Value {
    this.take("(");
    const args: Value[] = [];
    while (!this.peek(")")) {
      args.push(this.or());
      if (!this.peek(")")) this.take(",");
    }
    this.take(")");
    switch (name) {
      case "toJSON":
        return JSON.stringify(args[0] ?? null, null, 2);
      case "fromJSON":
        return JSON.parse(text(args[0] ?? null)) as Value;
      case "startsWith":
        return text(args[0] ?? null)
          .toLowerCase()
          .startsWith(text(args[1] ?? null).toLowerCase());
      case "format":
        return text(args[0] ?? null).replace(/\{(\d+)\}/g, (_, n) => text(args[Number(n) + 1] ?? null));
      case "success":
        return !this.status.failed;
      case "failure":
        return this.status.failed;
      case "cancelled":
        return false;
      case "always":
        return true;
      default:
        return this.fail(`the function ${name} is not known here`);
    }
  }
}

export function evaluate(expression: string, contexts: Contexts, status: Status = { failed: false }): Value {
  return new Parser(expression, tokenize(expression), contexts, status).parse();
}

/**
 * A workflow value with `${{ … }}` in it: a value that is one whole expression keeps its type (an
 * `if:` is a boolean, `fromJSON` an object); anything else is text with each expression's text in it.
 */
export function interpolate(value: unknown, contexts: Contexts, status?: Status): Value {
  if (typeof value !== "string") return (value ?? null) as Value;
  const whole = /^\$\{\{(.*)\}\}$/s.exec(value.trim());
  if (whole && !whole[1]?.includes("}}")) return evaluate(whole[1] as string, contexts, status);
  return value.replace(/\$\{\{(.*?)\}\}/gs, (_, expression: string) =>
    text(evaluate(expression, contexts, status)),
  );
}

export const asText = text;
export const isTruthy = truthy;
