import { createRequire } from "node:module";
import type { Dispatcher, Agent as UndiciAgent, FormData as UndiciFormData } from "undici";

/*
 * The parts of undici the client uses (its Agent, its request API, its FormData) loaded from their
 * own files. undici's index loads all of undici (fetch, WebSocket, caches, mocks, proxies: ~110
 * files), about half of the CPU that `egp plan` spends starting; the first two need about 40. undici has no
 * `exports` map, so the files are reachable, and test/client/undici.test.ts checks that they are the
 * very objects undici's index exports: an upgrade that moves them fails there (and at start), not
 * silently.
 */

const require = createRequire(import.meta.url);

export const Agent = require("undici/lib/dispatcher/agent.js") as typeof UndiciAgent;
export type Agent = UndiciAgent;

type RequestApi = (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;

/** undici's request API (what `Dispatcher.prototype.request` is once undici's index has loaded). */
export const requestApi = require("undici/lib/api/api-request.js") as RequestApi;

/** `undici.request(url, options)`, through the dispatcher given. */
export function request(
  dispatcher: Dispatcher,
  url: string,
  options: Omit<Dispatcher.RequestOptions, "origin" | "path">,
): Promise<Dispatcher.ResponseData> {
  const { origin, pathname, search } = new URL(url);
  return requestApi.call(dispatcher, { ...options, origin, path: pathname + search });
}

/**
 * undici's FormData, loaded on the first upload only (it brings undici's web platform files). The
 * request API accepts a FormData of this very undici only, and encodes it at each send.
 */
export function formDataClass(): typeof UndiciFormData {
  return (require("undici/lib/web/fetch/formdata.js") as { FormData: typeof UndiciFormData }).FormData;
}
