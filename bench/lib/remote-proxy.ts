import {
  Agent,
  createServer,
  type IncomingMessage,
  request,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { Transform, type TransformCallback } from "node:stream";
import { pipeline } from "node:stream/promises";

/*
 * A remote instance on loopback: an HTTP proxy on 127.0.0.1 in front of an emulator that adds
 * `latencyMs` to every exchange (half on the way there, half on the way back), can cap the link's
 * bandwidth (each direction shared by every connection, as one link is), can make each new
 * connection wait `handshakes` round trips before its first byte is read (TLS and TCP set-up), and
 * can drop the `Content-Length` of package downloads, as instances that stream them do.
 */

export interface ProxyOptions {
  latencyMs: number;
  /** Bytes per second each way; 0: no cap. */
  bytesPerSecond?: number;
  /** Round trips each new connection waits before its first request is read. */
  handshakes?: number;
  /** Package downloads answered without a length (chunked). */
  noLength?: boolean;
}

/** One exchange through the proxy: when it arrived and when its answer was sent (performance.now()). */
export interface Exchange {
  proxy: string;
  method: string;
  path: string;
  start: number;
  end: number;
}

export interface RemoteProxy {
  url: string;
  /** Connections opened to it so far. */
  connections(): number;
  configure(options: ProxyOptions): void;
  /** Records each exchange into `into` (until called with undefined). */
  trace(into: Exchange[] | undefined, name?: string): void;
  close(): Promise<void>;
}

const sleep = (ms: number) =>
  ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();

/** One direction of a link: bytes leave at its rate, in order, whoever sends them. */
class Link {
  private free = 0;
  private readonly rate: () => number;

  constructor(rate: () => number) {
    this.rate = rate;
  }

  /** A stream through the link: each chunk passes once the link has carried it. */
  through(): Transform {
    return new Transform({
      transform: (chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) => {
        const rate = this.rate();
        if (rate <= 0) return done(null, chunk);
        const now = performance.now();
        this.free = Math.max(this.free, now) + (chunk.length / rate) * 1000;
        setTimeout(() => done(null, chunk), this.free - now);
      },
    });
  }
}

const DOWNLOAD = /\/package\/download\//;

export async function startProxy(upstream: string, initial: ProxyOptions): Promise<RemoteProxy> {
  let options = initial;
  let opened = 0;
  const target = new URL(upstream);
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const up = new Link(() => options.bytesPerSecond ?? 0);
  const down = new Link(() => options.bytesPerSecond ?? 0);
  const sockets = new Set<Socket>();

  let traced: { into: Exchange[]; name: string } | undefined;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const start = performance.now();
    await sleep(options.latencyMs / 2);
    const forward = request({
      host: target.hostname,
      port: target.port,
      method: req.method,
      path: req.url,
      headers: req.headers,
      agent,
    });
    const answered = new Promise<IncomingMessage>((resolve, reject) => {
      forward.once("response", resolve);
      forward.once("error", reject);
    });
    await pipeline(req, up.through(), forward);
    const answer = await answered;
    await sleep(options.latencyMs / 2);
    const headers = { ...answer.headers };
    if (options.noLength && DOWNLOAD.test(req.url ?? "")) delete headers["content-length"];
    res.writeHead(answer.statusCode ?? 502, headers);
    await pipeline(answer, down.through(), res);
    const override = req.headers["x-http-method-override"];
    traced?.into.push({
      proxy: traced.name,
      method: typeof override === "string" ? override : (req.method ?? ""),
      path: (req.url ?? "").split("?")[0] as string,
      start,
      end: performance.now(),
    });
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(502);
      res.destroy();
    });
  });
  server.keepAliveTimeout = 30_000;
  server.on("connection", (socket: Socket) => {
    opened += 1;
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    const rounds = options.handshakes ?? 0;
    if (rounds <= 0) return;
    // Nothing is read before the handshakes' round trips are over.
    socket.pause();
    setTimeout(() => socket.resume(), rounds * options.latencyMs);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    connections: () => opened,
    configure(next) {
      options = next;
    },
    trace(into, name = url) {
      traced = into && { into, name };
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
