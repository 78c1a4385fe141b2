import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { localKey, localKeyFolder } from "./local-key.ts";

const fresh = () => mkdtempSync(join(tmpdir(), "egp-key-"));

describe("localKey", () => {
  it("makes a 32-byte key 0600 in a 0700 folder under XDG_CONFIG_HOME, and keeps it", () => {
    const home = fresh();
    const key = localKey({ XDG_CONFIG_HOME: home });
    const file = join(home, "egp", "state.key");
    expect(readFileSync(file)).toHaveLength(32);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, "egp")).mode & 0o777).toBe(0o700);
    const tag = key.seal("bytes", "cache");
    expect(key.check("bytes", tag, "cache")).toBe(true);
    expect(key.check("bytez", tag, "cache")).toBe(false);
    expect(key.check("bytes", tag, "journal")).toBe(false);
    expect(key.check("bytes", "not a tag", "cache")).toBe(false);
  });

  it("seals differently under another user's key, and alike under EGP_STATE_KEY", () => {
    const one = localKey({ XDG_CONFIG_HOME: fresh() });
    const two = localKey({ XDG_CONFIG_HOME: fresh() });
    expect(two.check("x", one.seal("x"))).toBe(false);
    expect(one.id).not.toBe(two.id);
    const secret = "s".repeat(40);
    expect(localKey({ EGP_STATE_KEY: secret }).seal("x")).toBe(
      localKey({ EGP_STATE_KEY: `${secret}` }).seal("x"),
    );
    expect(localKey({ EGP_STATE_KEY: secret }).source).toBe("EGP_STATE_KEY");
  });

  it("refuses a key file others can read, a link, or a short EGP_STATE_KEY", () => {
    const wide = fresh();
    mkdirSync(localKeyFolder({ XDG_CONFIG_HOME: wide }), { mode: 0o700 });
    const wideFile = join(localKeyFolder({ XDG_CONFIG_HOME: wide }), "state.key");
    writeFileSync(wideFile, Buffer.alloc(32));
    chmodSync(wideFile, 0o644);
    expect(() => localKey({ XDG_CONFIG_HOME: wide })).toThrow(/read or written by other users/);

    const target = join(fresh(), "key");
    writeFileSync(target, Buffer.alloc(32), { mode: 0o600 });
    const link = fresh();
    mkdirSync(localKeyFolder({ XDG_CONFIG_HOME: link }), { mode: 0o700 });
    symlinkSync(target, join(localKeyFolder({ XDG_CONFIG_HOME: link }), "state.key"));
    expect(() => localKey({ XDG_CONFIG_HOME: link })).toThrow(/symbolic link/);

    expect(() => localKey({ EGP_STATE_KEY: "short" })).toThrow(/shorter than 32/);
  });
});
