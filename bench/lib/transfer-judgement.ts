import { median, pairedRatios } from "./rounds.ts";

/*
 * The verdict of bench/transfer.ts, from its rounds. Judged: egp's CPU over the CPU of the same
 * work done by curl and sha256sum (the download, the upload, and the file's sha256, which egp
 * computes as it downloads), and egp's peak RSS. Printed, not judged: the wall-time ratios, which
 * on loopback and 2 shared cores swing with the page cache and with three busy processes (egp and
 * both emulators) against curl's two; and the CPU against curl with openssl's hash, which uses
 * the CPU's SHA instructions as egp's does where coreutils' may not.
 */

/** egp's CPU over curl's two transfers plus sha256sum's, median of the rounds' ratios (DESIGN §5). */
export const CPU_TARGET = 1;
export const RSS_LIMIT_MB = 150;

export interface EgpRound {
  /** The whole promotion, download and upload overlapped. */
  totalMs: number;
  /** egp's CPU during the promotion. */
  cpuMs: number;
  /** The sha256 egp computed as it downloaded. */
  sha256: string;
}

export interface CurlRound {
  downloadMs: number;
  uploadMs: number;
  /** curl's CPU for both transfers. */
  cpuMs: number;
  /** sha256sum's CPU for the downloaded file. */
  hashCpuMs: number;
  /** openssl's CPU for the same hash (NaN without openssl). */
  opensslCpuMs: number;
  /** sha256sum's digest of the file. */
  sha256: string;
}

export interface Judgement {
  /** Judged, by round: egp's CPU / (curl's + sha256sum's). */
  cpuRatios: number[];
  /** Printed, by round. */
  overCurlCpu: number[];
  overOpenssl: number[];
  overSlower: number[];
  overSequential: number[];
  problems: string[];
  /** The figures printed last, the judged ones first. */
  lines: string[];
}

export function judgeTransfer(
  egp: readonly EgpRound[],
  curls: readonly CurlRound[],
  peakMb: number,
): Judgement {
  const egpCpu = egp.map((t) => t.cpuMs);
  const egpMs = egp.map((t) => t.totalMs);
  const cpuRatios = pairedRatios(
    egpCpu,
    curls.map((t) => t.cpuMs + t.hashCpuMs),
  );
  const overCurlCpu = pairedRatios(
    egpCpu,
    curls.map((t) => t.cpuMs),
  );
  const overOpenssl = pairedRatios(
    egpCpu,
    curls.map((t) => t.cpuMs + t.opensslCpuMs),
  );
  const overSlower = pairedRatios(
    egpMs,
    curls.map((t) => Math.max(t.downloadMs, t.uploadMs)),
  );
  const overSequential = pairedRatios(
    egpMs,
    curls.map((t) => t.downloadMs + t.uploadMs),
  );
  const cpuRatio = median(cpuRatios);
  const problems: string[] = [];
  if (egp.some((t, i) => t.sha256 !== curls[i]?.sha256))
    problems.push("egp's sha256 differs from sha256sum's of curl's download of the same package");
  if (!(cpuRatio <= CPU_TARGET))
    problems.push(`egp used ${cpuRatio.toFixed(2)} × the CPU of curl's transfers and sha256sum`);
  if (peakMb >= RSS_LIMIT_MB) problems.push(`egp peak RSS ${peakMb.toFixed(1)} MB`);
  const lines = [
    `egp CPU / (curl transfers + sha256sum) CPU, median of rounds: ${cpuRatio.toFixed(2)}`,
    `egp peak RSS MB: ${peakMb.toFixed(1)}`,
    `egp CPU / (curl transfers + openssl sha256) CPU, median of rounds, not judged: ${median(overOpenssl).toFixed(2)}`,
    `promotion / slower curl transfer, median of rounds, not judged: ${median(overSlower).toFixed(2)}`,
    `promotion / curl sequential, median of rounds, not judged: ${median(overSequential).toFixed(2)}`,
  ];
  return { cpuRatios, overCurlCpu, overOpenssl, overSlower, overSequential, problems, lines };
}
