import * as undici from "undici";
import { describe, expect, it } from "vitest";
import { Agent, formDataClass, requestApi } from "../../src/client/undici.ts";

// src/client/undici.ts loads some of undici's own files instead of its index: they must be the very
// objects the index exports, or an upgrade of undici has moved them.
describe("the parts of undici the client loads", () => {
  it("are undici's Agent and its request API", () => {
    expect(Agent).toBe(undici.Agent);
    expect(requestApi).toBe(undici.Dispatcher.prototype.request);
  });

  it("is undici's FormData, the only one its request API encodes", () => {
    expect(formDataClass()).toBe(undici.FormData);
  });
});
