import { describe, expect, it } from "vitest";
import type { ApplyEvent } from "../apply/index.ts";
import type { Step } from "../plan/index.ts";
import { bytesText, elapsed, LiveView, transferBar } from "./live-view.ts";
import { styleOf } from "./style.ts";

const step = (id: string): Step => ({
  id,
  change: id.split("#")[0] ?? id,
  op: "package.download",
  environment: "dev",
  dependsOn: [],
  input: {},
});

/** A terminal that records what is written, and a clock the test moves. */
function harness() {
  let now = 1_000;
  let written = "";
  const view = new LiveView(
    { write: (text) => (written += text), columns: () => 100 },
    styleOf(false),
    () => now,
  );
  return {
    view,
    advance: (ms: number) => (now += ms),
    take: () => {
      const text = written;
      written = "";
      return text;
    },
  };
}

describe("the live view", () => {
  it("shows each running step with its elapsed time and a transfer with its bar, bytes and rate", () => {
    const { view, advance, take } = harness();
    const download = step("Package/P#download");
    view.event({ type: "start", step: download });
    expect(take()).toBe("\r\x1b[J⋯ Package/P#download (dev) 0 ms\n");
    advance(500);
    const progress: ApplyEvent = {
      type: "progress",
      step: download,
      message: "downloading",
      bytes: 0,
      total: 4 * 1024 * 1024,
    };
    view.event(progress);
    expect(take()).toBe(
      "\r\x1b[1A\x1b[J⋯ Package/P#download (dev) 500 ms  downloading [░░░░░░░░░░░░] 0 B of 4.0 MiB\n",
    );
    advance(1_000);
    // Further chunks are drawn by the timer, not one write per chunk.
    view.event({ ...progress, bytes: 2 * 1024 * 1024 });
    expect(take()).toBe("");
    view.event({ type: "start", step: step("User/a#create") });
    expect(take()).toBe(
      "\r\x1b[1A\x1b[J⋯ Package/P#download (dev) 1.5 s  downloading [██████░░░░░░] 2.0 MiB of 4.0 MiB, 2.0 MiB/s\n" +
        "⋯ User/a#create (dev) 0 ms\n",
    );
    advance(250);
    view.event({ type: "done", step: download, ms: 1_750 });
    expect(take()).toBe(
      "\r\x1b[2A\x1b[J✓ Package/P#download (dev) done in 1.8 s\n⋯ User/a#create (dev) 250 ms\n",
    );
    view.close();
    expect(take()).toBe("\r\x1b[1A\x1b[J");
  });

  it("cuts a line to the terminal's width, so that a redraw stays in place", () => {
    let written = "";
    const view = new LiveView({ write: (text) => (written += text), columns: () => 30 }, styleOf(false));
    view.event({ type: "start", step: step("Package/A very long package name#download") });
    const line = written.replace("\r\x1b[J", "").trimEnd();
    expect(line.length).toBeLessThanOrEqual(29);
    expect(line).toContain("…");
  });

  it("says sizes and times in units that fit", () => {
    expect(bytesText(512)).toBe("512 B");
    expect(bytesText(9_726)).toBe("9.5 KiB");
    expect(bytesText(500 * 1024 * 1024)).toBe("500.0 MiB");
    expect(elapsed(340)).toBe("340 ms");
    expect(elapsed(2_449)).toBe("2.4 s");
    expect(transferBar(512, undefined, 1_000)).toBe("512 B, 512 B/s");
  });
});
