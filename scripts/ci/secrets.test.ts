import { describe, expect, it } from "vitest";
import { secretsForEgp } from "./secrets.ts";

describe("secretsForEgp", () => {
  it("passes on only the EGP_* secrets", () => {
    const json = JSON.stringify({
      github_token: "ghs_x",
      EGP_PROD_PASSWORD: "p1",
      EGP_DEV_PASSWORD: "p2",
      OTHER_PASSWORD: "p3",
      egp_lower: "p4",
    });
    expect(secretsForEgp(json)).toEqual({ EGP_PROD_PASSWORD: "p1", EGP_DEV_PASSWORD: "p2" });
  });

  it("is empty when nothing was handed over", () => {
    expect(secretsForEgp(undefined)).toEqual({});
    expect(secretsForEgp("  ")).toEqual({});
  });

  it("refuses what is not a JSON object, without quoting it", () => {
    expect(() => secretsForEgp("EGP_PROD_PASSWORD=hunter2")).toThrow(
      "EGP_CI_SECRETS is not JSON; set it to the expression toJSON(secrets)",
    );
    expect(() => secretsForEgp("EGP_PROD_PASSWORD=hunter2")).not.toThrow(/hunter2/);
    expect(() => secretsForEgp('["hunter2"]')).toThrow("EGP_CI_SECRETS is not a JSON object");
  });
});
