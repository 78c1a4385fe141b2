import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "./emulator-child.ts";
import { LOAD_LIMIT, median, pairedRatios } from "./rounds.ts";

/*
 * DESIGN §5: speed machinery stays only where an on/off run shows it saves at least 10% of a plan's
 * wall time on plan-scale or on remote. Each piece is turned off by passing its plain variant in,
 * as the library's callers pass values (nothing in src/ switches it): a run with every piece on is
 * paired, round by round, with a run of each piece off and the others on.
 */

export const PIECES = {
  parse: {
    what: "the js-yaml event fast path (src/manifest/yaml-events.ts)",
    plain: "the yaml library for every file (yamlParser)",
  },
  validate: {
    what: "the zod shortcut (src/schema/as-is.ts)",
    plain: "zod's own parse (zodParse), for manifests and answers",
  },
  cache: {
    what: "the v8-serialized manifest and state cache (src/manifest/cache.ts)",
    plain: "no cache",
  },
} as const;

export type Piece = keyof typeof PIECES;
/** `all`: every piece on; a piece's name: that piece off, the others on. */
export type Variant = "all" | Piece;

/** Kept where it saves at least this fraction of the plan's wall time (off / all on − 1). */
export const KEEP_SAVING = 0.1;

export function isVariant(text: string | undefined): text is Variant {
  return text === "all" || (text !== undefined && Object.hasOwn(PIECES, text));
}

/**
 * The variants of one round in a turning order (round 0: all first; round 1: the first piece
 * first; …), so that neither all-on nor any piece always runs right after the same other.
 */
export function variantsOf(round: number, pieces: readonly Piece[]): Variant[] {
  const all: Variant[] = ["all", ...pieces];
  const shift = round % all.length;
  return [...all.slice(shift), ...all.slice(0, shift)];
}

/** One measured figure of a piece: its per-round wall times off, paired with all on's. */
export interface PieceTimes {
  piece: Piece;
  /** What was timed: `plan, cold`, `promotion`… */
  measure: string;
  off: number[];
  on: number[];
}

export interface PieceFigure {
  piece: Piece;
  measure: string;
  /** Median of the per-round ratios off / all on. */
  ratio: number;
  /** What the piece saves of the plan's wall time: ratio − 1. */
  saving: number;
}

export function figureOf(times: PieceTimes): PieceFigure {
  const ratio = median(pairedRatios(times.off, times.on));
  return { piece: times.piece, measure: times.measure, ratio, saving: ratio - 1 };
}

/** Keep: the piece saves KEEP_SAVING or more in one of its figures (of either bench). */
export function verdictOf(figures: readonly PieceFigure[]): "keep" | "drop" {
  return figures.some((figure) => figure.saving >= KEEP_SAVING) ? "keep" : "drop";
}

/** What one bench found, kept so that the other bench's run can give the verdict of both. */
interface BenchResult {
  bench: string;
  at: string;
  load: number;
  figures: PieceFigure[];
}

/** Where each bench's last figures are kept for the other's verdict. */
export const PIECES_RESULTS = join(tmpdir(), "egp-bench-pieces.json");

function savedResults(file: string): BenchResult[] {
  if (!existsSync(file)) return [];
  try {
    return JSON.parse(readFileSync(file, "utf8")) as BenchResult[];
  } catch {
    return [];
  }
}

const percent = (fraction: number) => `${(fraction * 100).toFixed(0)}%`;

/**
 * The pieces' lines of one bench: each figure (off / all on, and what the piece saves), this
 * bench's verdict, and, when the other bench has run (its figures are kept in the OS temp folder),
 * the verdict of both.
 */
export function piecesReport(
  bench: string,
  load: number,
  times: readonly PieceTimes[],
  file = PIECES_RESULTS,
): string[] {
  const figures = times.map(figureOf);
  const lines = [
    `pieces (${bench}): wall time with the piece off / all on, the median of the per-round ratios; saves = off / on − 1; keep at ≥ ${percent(KEEP_SAVING)} on either bench`,
  ];
  for (const piece of Object.keys(PIECES) as Piece[]) {
    const own = figures.filter((figure) => figure.piece === piece);
    if (own.length === 0) continue;
    const shown = own
      .map((f) => `${f.measure} ${f.ratio.toFixed(2)} (saves ${percent(f.saving)})`)
      .join(", ");
    lines.push(`piece ${piece}, ${PIECES[piece].what}; off: ${PIECES[piece].plain}: ${shown}`);
  }
  const others = savedResults(file).filter((result) => result.bench !== bench);
  const mine: BenchResult = { bench, at: new Date().toISOString(), load, figures };
  writeFileSync(file, JSON.stringify([...others, mine], null, 2));
  const other = others.at(-1);
  const counts = (at: number) => at <= LOAD_LIMIT;
  for (const piece of Object.keys(PIECES) as Piece[]) {
    const own = figures.filter((figure) => figure.piece === piece);
    const theirs = other?.figures.filter((figure) => figure.piece === piece) ?? [];
    if (own.length === 0 && theirs.length === 0) continue;
    const here =
      own.length === 0
        ? `not measured on ${bench}`
        : counts(load)
          ? `${verdictOf(own)} on ${bench}`
          : `no verdict on ${bench} (load ${load.toFixed(2)})`;
    const both =
      other &&
      `; with ${other.bench} (${other.at}, load ${other.load.toFixed(2)}): ${
        counts(load) && counts(other.load) ? verdictOf([...own, ...theirs]) : "no verdict"
      }`;
    lines.push(`verdict ${piece}: ${here}${both ?? ""}`);
  }
  return lines;
}

/** egp's modules for a child: the compiled dist/ (as the package ships) or the sources. */
export function egpModule<T>(path: string, dist: boolean): Promise<T> {
  const file = dist ? join(ROOT, "dist", path.replace(/\.ts$/, ".js")) : join(ROOT, "src", path);
  return import(file) as Promise<T>;
}
