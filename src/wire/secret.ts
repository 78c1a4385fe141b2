/**
 * A value that is sent to the platform but never shown: a password, or a value substituted from
 * `${VAR}`. It is held in memory only; every way of turning it into text (string conversion, JSON,
 * util.inspect) gives its `shown` word or, for JSON, its `json` form, so a model that holds one can
 * be logged, saved or rendered without it. Only `reveal()` gives the value, where a call sends it.
 */
export class Secret {
  readonly #value: string;
  readonly #shown: string;
  readonly #json: string | undefined;

  /** `json`: what JSON holds in its place; `undefined` leaves the property out. */
  constructor(value: string, shown = "[redacted]", json: string | undefined = shown) {
    this.#value = value;
    this.#shown = shown;
    this.#json = json;
    Object.freeze(this);
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return this.#shown;
  }

  toJSON(): string | undefined {
    return this.#json;
  }

  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return this.#shown;
  }
}
