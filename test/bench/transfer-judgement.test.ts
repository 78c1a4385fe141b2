import { describe, expect, it } from "vitest";
import {
  CPU_TARGET,
  type CurlRound,
  type EgpRound,
  judgeTransfer,
  RSS_LIMIT_MB,
} from "../../bench/lib/transfer-judgement.ts";

/*
 * bench/transfer.ts on loopback is a guard judged fairly: egp's CPU against curl's two transfers
 * plus sha256sum of the file (the hash egp computes too), its wall-time ratios printed, not judged.
 */

const DIGEST = "ab".repeat(32);

/** Six rounds of curl: 1 s down, 1.5 s up, 1 s of CPU for both transfers, 1 s for sha256sum. */
const curls = (overrides: Partial<CurlRound> = {}): CurlRound[] =>
  Array.from({ length: 6 }, () => ({
    downloadMs: 1000,
    uploadMs: 1500,
    cpuMs: 1000,
    hashCpuMs: 1000,
    opensslCpuMs: 300,
    sha256: DIGEST,
    ...overrides,
  }));

const egps = (cpuMs: number, totalMs: number, sha256 = DIGEST): EgpRound[] =>
  Array.from({ length: 6 }, () => ({ cpuMs, totalMs, sha256 }));

describe("the loopback transfer's judgement", () => {
  it("passes a promotion that takes twice curl's slower transfer but no more CPU than curl and sha256sum", () => {
    const judged = judgeTransfer(egps(1800, 3000), curls(), 140);
    expect(judged.problems).toEqual([]);
    expect(judged.lines).toEqual([
      "egp CPU / (curl transfers + sha256sum) CPU, median of rounds: 0.90",
      "egp peak RSS MB: 140.0",
      "egp CPU / (curl transfers + openssl sha256) CPU, median of rounds, not judged: 1.38",
      "promotion / slower curl transfer, median of rounds, not judged: 2.00",
      "promotion / curl sequential, median of rounds, not judged: 1.20",
    ]);
  });

  it("counts sha256sum's CPU on curl's side: egp's CPU above curl's alone is not a failure", () => {
    const judged = judgeTransfer(egps(1500, 1000), curls(), 140);
    expect(judged.overCurlCpu.every((ratio) => ratio > CPU_TARGET)).toBe(true);
    expect(judged.problems).toEqual([]);
  });

  it("fails egp's CPU above curl's transfers plus sha256sum, whatever the wall time", () => {
    const judged = judgeTransfer(egps(2200, 500), curls(), 140);
    expect(judged.problems).toEqual(["egp used 1.10 × the CPU of curl's transfers and sha256sum"]);
  });

  it("judges the median of the rounds' paired ratios, so that one slow round does not decide", () => {
    const egp = egps(1800, 3000);
    egp[2] = { cpuMs: 9000, totalMs: 3000, sha256: DIGEST };
    expect(judgeTransfer(egp, curls(), 140).problems).toEqual([]);
  });

  it("fails a peak RSS at the limit and a digest other than sha256sum's", () => {
    const judged = judgeTransfer(egps(1800, 3000, "cd".repeat(32)), curls(), RSS_LIMIT_MB);
    expect(judged.problems).toEqual([
      "egp's sha256 differs from sha256sum's of curl's download of the same package",
      `egp peak RSS ${RSS_LIMIT_MB.toFixed(1)} MB`,
    ]);
  });
});
