import { createInterface } from "node:readline";
import { acquireLock } from "../../src/apply/lock.ts";

/*
 * A child process that takes apply locks on request, for the race test of src/apply/lock.ts. Each
 * stdin line is `<stateDir> <epochMs>`: it spins until that instant (so that two children start
 * together), calls acquireLock, keeps the lock (its pid stays alive) and prints `taken`, `locked`
 * or `error <message>`.
 */

for await (const line of createInterface({ input: process.stdin })) {
  const [dir = "", at = "0"] = line.split(" ");
  const start = Number(at);
  while (Date.now() < start) {
    // spin: a timer would add a millisecond or more of jitter
  }
  let answer: string;
  try {
    acquireLock(dir, "prod", "race");
    answer = "taken";
  } catch (error) {
    answer =
      (error as { code?: string }).code === "EGP_LOCKED" && /locked by pid/.test(String(error))
        ? "locked"
        : `error ${(error as Error).message}`;
  }
  process.stdout.write(`${answer}\n`);
}
