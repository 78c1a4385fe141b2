import { describe, expect, it } from "vitest";
import { REDACTED, Scrubber } from "../../src/client/redact.ts";

describe("Scrubber: longest secret first, whatever the order they were added in", () => {
  it("removes a secret that contains another one whole", () => {
    for (const order of [
      ["abc", "abcdef", "xabcdefx"],
      ["xabcdefx", "abcdef", "abc"],
      ["abcdef", "xabcdefx", "abc"],
    ]) {
      const scrubber = new Scrubber();
      for (const secret of order) scrubber.add(secret);
      expect(scrubber.scrub("1 xabcdefx 2 abcdef 3 abc 4"), order.join(",")).toBe(
        `1 ${REDACTED} 2 ${REDACTED} 3 ${REDACTED} 4`,
      );
    }
  });

  it("keeps every password of a large apply, added one by one", () => {
    const scrubber = new Scrubber();
    const passwords = Array.from({ length: 2000 }, (_, i) => `Pw-${"x".repeat(i % 17)}-${i}!`);
    for (const password of passwords) scrubber.add(password);
    for (const index of [0, 777, 1999]) {
      expect(scrubber.scrub(`sent ${passwords[index]} and "${passwords[index]}"`)).toBe(
        `sent ${REDACTED} and "${REDACTED}"`,
      );
    }
  });
});
