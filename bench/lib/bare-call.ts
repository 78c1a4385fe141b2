import { type Dispatcher, request } from "undici";

/**
 * One read or write of the interface as a bare reader makes it (the benches' floor): JSON in and
 * out, the session token, and reads as POST with the GET override, as egp's client sends them.
 */
export async function bareCall(
  dispatcher: Dispatcher,
  url: string,
  token: string | null,
  path: string,
  method = "POST",
  body?: unknown,
): Promise<unknown> {
  const headers: Record<string, string> = {
    accept: "application/json",
    "content-type": "application/json",
  };
  if (token) headers.authorization = `Platform session-id="${token}"`;
  if (method === "POST" && !path.endsWith("/login") && !path.endsWith("/logout"))
    headers["x-http-method-override"] = "GET";
  const response = await request(`${url}/platformapi${path}`, {
    method: method as "POST",
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    dispatcher,
  });
  return (await response.body.json()) as unknown;
}
