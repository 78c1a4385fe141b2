import { describe, expect, it } from "vitest";
import { maskCommands, secretsForEgp } from "./secrets.ts";

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

  it("takes EGP_SECRETS's entries as secrets of their own names; a secret passed by name wins", () => {
    const mapping = JSON.stringify({ EGP_TEST_PASSWORD: "t1", EGP_PROD_PASSWORD: "old", OTHER: "x" });
    const json = JSON.stringify({ EGP_SECRETS: mapping, EGP_PROD_PASSWORD: "p1" });
    expect(secretsForEgp(json)).toEqual({ EGP_TEST_PASSWORD: "t1", EGP_PROD_PASSWORD: "p1" });
    // GitHub masks the secrets it passed; only what EGP_SECRETS carried is new to it.
    expect(maskCommands(json)).toBe("::add-mask::t1\n::add-mask::old\n");
    expect(maskCommands(JSON.stringify({ EGP_PROD_PASSWORD: "p1" }))).toBe("");
    expect(() => secretsForEgp(JSON.stringify({ EGP_SECRETS: "hunter2" }))).toThrow(
      'EGP_SECRETS is not JSON: store it as {"EGP_TEST_PASSWORD": "…", …}',
    );
    expect(() => secretsForEgp(JSON.stringify({ EGP_SECRETS: "hunter2" }))).not.toThrow(/hunter2/);
  });
});
