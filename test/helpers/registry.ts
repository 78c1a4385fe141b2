import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/*
 * A real OCI registry on 127.0.0.1: Debian's docker-registry (CNCF distribution), started per test
 * file on a free port with its storage in a temp folder. Missing, it fails the test (CI installs it
 * with scripts/ensure-registry.sh): a registry test that skips proves nothing.
 */

export interface Registry {
  /** `127.0.0.1:PORT`. */
  host: string;
  /** http://127.0.0.1:PORT */
  url: string;
  /** The storage folder: `docker/registry/v2/...` under it. */
  root: string;
  /** Path of a blob's bytes on disk. */
  blobPath(digest: string): string;
  stop(): Promise<void>;
}

const BINARY = "docker-registry";

function findBinary(): string {
  try {
    return execFileSync("sh", ["-c", `command -v ${BINARY}`], { encoding: "utf8" }).trim();
  } catch {
    throw new Error(
      `${BINARY} is not installed: run scripts/ensure-registry.sh (it installs Debian's docker-registry)`,
    );
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === "string") throw new Error("no port");
  return address.port;
}

async function waitUntilUp(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`docker-registry exited (${child.exitCode}): ${output()}`);
    const answered = await fetch(`${url}/v2/`).then(
      (response) => response.status,
      () => 0,
    );
    if (answered === 200 || answered === 401) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`docker-registry did not answer on ${url} within 30 s: ${output()}`);
}

export async function startRegistry(): Promise<Registry> {
  const binary = findBinary();
  const dir = await mkdtemp(join(tmpdir(), "egp-registry-"));
  const root = join(dir, "storage");
  const port = await freePort();
  const config = [
    "version: 0.1",
    "log:",
    "  level: error",
    "  accesslog:",
    "    disabled: true",
    "storage:",
    "  filesystem:",
    `    rootdirectory: ${root}`,
    "  delete:",
    "    enabled: true",
    "http:",
    `  addr: 127.0.0.1:${port}`,
    "",
  ].join("\n");
  await writeFile(join(dir, "config.yml"), config);
  const child = spawn(binary, ["serve", join(dir, "config.yml")], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output = (output + String(chunk)).slice(-4000);
  });
  child.stderr?.on("data", (chunk) => {
    output = (output + String(chunk)).slice(-4000);
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntilUp(url, child, () => output);
  } catch (error) {
    child.kill("SIGKILL");
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    host: `127.0.0.1:${port}`,
    url,
    root,
    blobPath: (digest) =>
      join(root, "docker", "registry", "v2", "blobs", "sha256", digest.slice(0, 2), digest, "data"),
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
