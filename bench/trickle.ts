/*
 * How long `egp plan` runs, with the default timeouts, against a server that accepts the login and
 * then trickles its answer one byte a second (issue 14), or with `silent` one that accepts and never
 * answers (issue 13): prints the time to the error and the lines egp wrote.
 * Usage: node bench/trickle.ts [trickle|silent] [path/to/bin/egp.js] [limit seconds]
 * (the default binary is this checkout's bin/egp.js; build it first: npx tsc -p tsconfig.build.json).
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const mode = process.argv[2] === "silent" ? "silent" : "trickle";
const bin = process.argv[3] ?? join(import.meta.dirname, "..", "bin", "egp.js");
const limitS = Number(process.argv[4] ?? 600);

const sockets = new Set<Socket>();
const server = createServer((socket) => {
  sockets.add(socket);
  socket.on("error", () => undefined);
  if (mode === "silent") return;
  socket.once("data", () => {
    socket.write("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n");
    const timer = setInterval(() => socket.write(" "), 1_000);
    socket.on("close", () => clearInterval(timer));
  });
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const address = server.address();
if (address === null || typeof address === "string") throw new Error("no port");

const dir = await mkdtemp(join(tmpdir(), "egp-trickle-"));
await mkdir(join(dir, "environments"));
await writeFile(
  join(dir, "environments", "prod.yaml"),
  `url: http://127.0.0.1:${address.port}\ninstance: Default\nauth: { username: svc, password: '\${EGP_PASSWORD}' }\n`,
);

const started = performance.now();
const result = await new Promise<{ code: number | string | null; stderr: string }>((resolve) => {
  execFile(
    process.execPath,
    [bin, "plan", "--env", "prod"],
    { cwd: dir, env: { PATH: process.env.PATH ?? "", EGP_PASSWORD: "Trickle#2026" }, timeout: limitS * 1000 },
    (error, _stdout, stderr) => resolve({ code: error ? (error.code ?? error.signal ?? 1) : 0, stderr }),
  );
});
const seconds = (performance.now() - started) / 1000;
const against = mode === "silent" ? "a host that never answers" : "a 1 byte/s trickle";
console.log(`egp plan against ${against}: exit ${result.code} after ${seconds.toFixed(1)} s`);
console.log(`connections opened: ${sockets.size}`);
console.log(result.stderr.trimEnd());
for (const socket of sockets) socket.destroy();
server.close();
await rm(dir, { recursive: true, force: true });
