import { describe, expect, it } from "vitest";
import { bytesOf, fileRead } from "./file-bytes.ts";

describe("a file read from disk", () => {
  it("hashes the bytes read, and decodes its text only when asked", () => {
    const bytes = Buffer.from("\ufeffkind: User\nuserName: zoë\n");
    const file = fileRead("manifests/users.yaml", bytes);
    expect(bytesOf(file)).toBe(bytes);
    expect(file.text).toBe("\ufeffkind: User\nuserName: zoë\n");
    expect(Buffer.from(file.text).equals(bytes)).toBe(true);
    expect({ ...file }).toEqual({ path: "manifests/users.yaml", text: file.text });
  });

  it("gives invalid UTF-8 the bytes of its decoded text, as a file given as text has", () => {
    const file = fileRead("manifests/odd.yaml", Buffer.from([0x61, 0x3a, 0x20, 0xff, 0x0a]));
    expect(file.text).toBe("a: \ufffd\n");
    expect(bytesOf(file).equals(Buffer.from("a: \ufffd\n"))).toBe(true);
    expect(bytesOf(file).equals(bytesOf({ path: "manifests/odd.yaml", text: "a: \ufffd\n" }))).toBe(true);
  });
});
