import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { figureOf, type PieceTimes, piecesReport, variantsOf, verdictOf } from "../../bench/lib/pieces.ts";

/*
 * The speed machinery's verdict (DESIGN §5): each piece off against all on, round by round, the
 * median of the per-round ratios; kept where it saves 10% or more on either bench.
 */

const work = mkdtempSync(join(tmpdir(), "egp-pieces-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const times = (piece: PieceTimes["piece"], off: number[], on: number[]): PieceTimes => ({
  piece,
  measure: "plan, warm",
  off,
  on,
});

describe("the pieces' comparison", () => {
  it("turns the order of the variants round by round, all on included", () => {
    expect(variantsOf(0, ["parse", "cache"])).toEqual(["all", "parse", "cache"]);
    expect(variantsOf(1, ["parse", "cache"])).toEqual(["parse", "cache", "all"]);
    expect(variantsOf(3, ["parse", "cache"])).toEqual(["all", "parse", "cache"]);
  });

  it("takes the median of the per-round ratios, not the ratio of the medians", () => {
    const figure = figureOf(times("cache", [3, 1, 2.2], [2, 2, 2]));
    expect(figure.ratio).toBeCloseTo(1.1);
    expect(figure.saving).toBeCloseTo(0.1);
  });

  it("keeps a piece that saves 10% in one figure, drops one that saves less in all", () => {
    const saves = (saving: number) => ({ piece: "parse" as const, measure: "m", ratio: 1 + saving, saving });
    expect(verdictOf([saves(0.02), saves(0.1)])).toBe("keep");
    expect(verdictOf([saves(0.02), saves(0.09)])).toBe("drop");
    expect(verdictOf([saves(-0.2)])).toBe("drop");
  });

  it("gives the verdict of both benches once the other has run", () => {
    const file = join(work, "results.json");
    const first = piecesReport("plan-scale", 0.5, [times("parse", [1.05], [1])], file);
    expect(first).toContain("verdict parse: drop on plan-scale");
    const second = piecesReport("remote", 0.7, [times("parse", [1.2], [1])], file);
    expect(second.find((line) => line.startsWith("verdict parse:"))).toMatch(
      /^verdict parse: keep on remote; with plan-scale \(.*, load 0\.50\): keep$/,
    );
  });

  it("gives no verdict from figures taken above a one-minute load of 1.5", () => {
    const file = join(work, "busy.json");
    const busy = piecesReport("plan-scale", 3.2, [times("cache", [1.3], [1])], file);
    expect(busy).toContain("verdict cache: no verdict on plan-scale (load 3.20)");
    const quiet = piecesReport("remote", 0.4, [times("cache", [1], [1])], file);
    expect(quiet.find((line) => line.startsWith("verdict cache:"))).toMatch(
      /^verdict cache: drop on remote; with plan-scale \(.*, load 3\.20\): no verdict$/,
    );
  });
});
