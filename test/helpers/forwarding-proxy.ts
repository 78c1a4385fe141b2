import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * An instance in front of `target` on 127.0.0.1: each request is forwarded as it came, after
 * `intercept` has seen it. `intercept` may change the URL (an instance that drops a query option)
 * or answer itself and return true (an instance that refuses something).
 */
export async function forwardingProxy(
  target: string,
  intercept: (url: URL, req: IncomingMessage, res: ServerResponse) => boolean | undefined = () => false,
): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", target);
    if (intercept(url, req, res)) return;
    const forward = request(
      url,
      { method: req.method, headers: { ...req.headers, host: url.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
