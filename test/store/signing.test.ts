import { describe, expect, it } from "vitest";
import { localKey } from "../../src/io/local-key.ts";
import { parseProject } from "../../src/manifest/project.ts";
import { generateSigningKey, isPublicKey, Keyring } from "../../src/store/index.ts";

const local = () => localKey({ EGP_STATE_KEY: "l".repeat(40) });

describe("signed store records", () => {
  it("are believed when signed by a key egp.yaml trusts, and not when moved to another key or edited", () => {
    const { privateKey, publicKey } = generateSigningKey();
    expect(isPublicKey(publicKey)).toBe(true);
    const ci = new Keyring({ signingKey: privateKey, localKey: local });
    const signed = ci.sign("verified/r1/test", { name: "r1", environment: "test" });
    expect(signed.signature).toMatchObject({ alg: "ed25519", key: publicKey });

    const reader = new Keyring({ trustedKeys: [publicKey], localKey: local });
    expect(reader.check("verified/r1/test", signed)).toEqual({ trusted: true, by: publicKey });
    expect(reader.check("verified/r1/prod", signed)).toMatchObject({ trusted: false, why: "bad-signature" });
    expect(reader.check("verified/r1/test", { ...signed, environment: "prod" })).toMatchObject({
      trusted: false,
      why: "bad-signature",
    });
    expect(new Keyring({ localKey: local }).check("verified/r1/test", signed)).toMatchObject({
      trusted: false,
      why: "untrusted-key",
    });
    expect(reader.check("verified/r1/test", { name: "r1", environment: "test" })).toEqual({
      trusted: false,
      why: "unsigned",
    });
  });

  it("are signed with the user's local key without a configured one, which only that key checks", () => {
    const mine = new Keyring({ localKey: local });
    expect(mine.signsWith).toBe("local");
    const signed = mine.sign("history/prod/111111111111", { id: "111111111111" });
    expect(mine.check("history/prod/111111111111", signed)).toMatchObject({ trusted: true });
    const theirs = new Keyring({ localKey: () => localKey({ EGP_STATE_KEY: "t".repeat(40) }) });
    expect(theirs.check("history/prod/111111111111", signed)).toMatchObject({
      trusted: false,
      why: "untrusted-key",
    });
  });

  it("refuses an EGP_SIGNING_KEY that is not an Ed25519 private key, and a trusted key that is not one", () => {
    expect(() => new Keyring({ signingKey: "not a key" })).toThrow(
      expect.objectContaining({ code: "EGP_SIGNING_KEY_UNUSABLE" }),
    );
    expect(() => parseProject("releases:\n  trustedKeys: [abc]\n")).toThrow(
      /egp\.yaml:2:17 .*expected ed25519:<base64 public key>/,
    );
    const { publicKey } = generateSigningKey();
    expect(parseProject(`releases:\n  trustedKeys: ["${publicKey}"]\n`).releases.trustedKeys).toEqual([
      publicKey,
    ]);
  });
});
