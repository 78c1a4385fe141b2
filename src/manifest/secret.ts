const REDACTED = "[redacted]";

/**
 * A secret value (a password) held in memory only. Every way of turning it into text (string
 * conversion, JSON, util.inspect) gives `[redacted]`, so a model that holds it can be logged or
 * serialized without leaking it; only `reveal()` gives the value, at the point where it is sent.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
    Object.freeze(this);
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return REDACTED;
  }
}
