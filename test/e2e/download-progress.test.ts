import { afterEach, describe, expect, it } from "vitest";
import { type Emulator, startEmulator } from "../../src/emulator/index.ts";
import { egp, exampleOnEmulators } from "../helpers/cli.ts";

/* Off a terminal, a promotion's download step says what it does with the bytes, upload included. */

const ENV = { EGP_TEST_PASSWORD: "Password1!" };

let running: Emulator[] = [];
afterEach(async () => {
  await Promise.all(running.map((e) => e.close()));
  running = [];
});

describe("the progress lines of a pipelined download", () => {
  it("name the upload as going on to the target, not as the download step's own upload", async () => {
    const [dev, prod] = await Promise.all([
      startEmulator({ port: 0, seed: "demo-dev", jobs: { generateMs: 20, installMs: 50 } }),
      startEmulator({ port: 0, seed: "demo-prod", jobs: { generateMs: 20, installMs: 50 } }),
    ]);
    running.push(dev, prod);
    const dir = await exampleOnEmulators({ dev: dev.url, prod: prod.url });
    const run = await egp(["apply", "--env", "local-prod", "--yes", "--dir", dir], { env: ENV });
    expect(run.code).toBe(0);
    const lines = run.stdout.split("\n").filter((line) => line.startsWith("Package/GRC Core#download"));
    expect(lines.join("\n")).toMatch(
      /^Package\/GRC Core#download \(local-dev\): sending on to local-prod as it downloads: uploaded \d+(\.\d)? KiB of \d+(\.\d)? KiB \(100%\)$/m,
    );
    expect(lines.join("\n")).not.toMatch(/#download \(local-dev\): uploading/);
  }, 60_000);
});
