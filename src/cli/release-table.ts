import { printable } from "../plan/index.ts";
import type { ReleaseListing } from "../release/release-list.ts";

/**
 * `test; prod verifying (soak until …); prod rolled back to 2026-12-r1 at …`: where it is verified,
 * soaking or found not verified, and where it was rolled back since.
 */
function verifiedText(release: ReleaseListing): string {
  const verified = release.verifiedOn.map((v) => v.environment).join(", ");
  const back = release.rolledBack.map(
    (r) => `${r.environment} rolled back${r.to === null ? "" : ` to ${r.to}`} at ${r.at}`,
  );
  const verifying = release.verifying.map((v) => `${v.environment} verifying (soak until ${v.soakUntil})`);
  const failed = release.notVerified.map((v) => `${v.environment} not verified (${v.reason})`);
  return [verified, ...verifying, ...failed, ...back].filter(Boolean).join("; ") || "-";
}

/** One row per release; below the table, what keeps a release from being promoted, if anything. */
export function releaseTable(releases: readonly ReleaseListing[], location: string): string {
  if (releases.length === 0)
    return `No releases: releases/ has no release file and the store ${location} has no release.\n`;
  const headings = ["release", "created", "from", "packages", "verified on", ""];
  const rows = releases.map((r) => [
    r.name,
    r.createdAt ?? "-",
    r.from ?? "-",
    r.packages.map((p) => p.name).join(", ") || "-",
    verifiedText(r),
    r.rejected ? "rejected" : "",
  ]);
  const table = [headings, ...rows].map((row) => row.map(printable));
  const widths = headings.map((_, i) => Math.max(...table.map((row) => (row[i] ?? "").length)));
  const lines = table.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd(),
  );
  const problems = releases.flatMap((r) => [
    ...(r.rejected
      ? [printable(`${r.name}: rejected by ${r.rejected.by} at ${r.rejected.at}: ${r.rejected.reason}`)]
      : []),
    ...(r.problem ? [printable(`${r.name}: ${r.problem}`)] : []),
  ]);
  return `${[...lines, ...(problems.length ? ["", ...problems] : [])].join("\n")}\n`;
}
