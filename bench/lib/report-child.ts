import { spawn } from "node:child_process";
import { launcherFlags, reap } from "./emulator-child.ts";
import { RssSampler } from "./proc.ts";

/**
 * A bench's own child (`script args…` under egp's launcher flags, with only PATH, the bench's
 * password and, with `dist`, the switch to the compiled egp): its RSS sampled every 20 ms, its
 * stdout one JSON report. `what` names it when it fails.
 */
export function reportOfChild<T>(
  what: string,
  script: string,
  args: readonly string[],
  options: { password: string; dist: boolean },
): Promise<{ report: T; sampledMb: number }> {
  const child = spawn(process.execPath, [...launcherFlags(), script, ...args], {
    stdio: ["ignore", "pipe", "inherit"],
    env: {
      PATH: process.env.PATH ?? "",
      EGP_BENCH_PASSWORD: options.password,
      ...(options.dist ? { EGP_BENCH_DIST: "1" } : {}),
    },
  });
  reap(child);
  const sampler = new RssSampler();
  sampler.start(child.pid as number, 20);
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.once("close", (code) => {
      const sampledMb = sampler.stop();
      if (code !== 0) return reject(new Error(`the ${what} child exited ${code}`));
      resolve({ report: JSON.parse(out) as T, sampledMb });
    });
  });
}
