// biome-ignore-all lint/suspicious/noTemplateCurlyInString: a reference as an environment file writes it.
import { describe, expect, it } from "vitest";
import { instanceOf } from "./audit-trail.ts";

describe("instanceOf: the instance an audit record names", () => {
  it("keeps a url from ${VAR} by its reference, never its value", () => {
    const written = "${GRC_URL}";
    expect(
      instanceOf({ endpoint: { kind: "http", url: "https://grc.internal", written }, instance: "Prod" }),
    ).toEqual({
      url: written,
      name: "Prod",
    });
    expect(
      instanceOf({ endpoint: { kind: "http", url: "https://grc.example.com" }, instance: "Prod" }),
    ).toEqual({
      url: "https://grc.example.com",
      name: "Prod",
    });
  });
});
