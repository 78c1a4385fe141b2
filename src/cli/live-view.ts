import type { ApplyEvent } from "../apply/index.ts";
import { printable } from "../plan/index.ts";
import type { Colour, Style } from "./style.ts";

/** A running step as the live view shows it. */
interface Running {
  label: string;
  startedAt: number;
  message?: string;
  bytes?: number;
  total?: number;
  /** When the step's transfer began, for its rate. */
  bytesSince?: number;
}

export interface Terminal {
  write(text: string): void;
  /** Columns; lines are cut to fit, so that each takes exactly one row and the redraw stays in place. */
  columns(): number;
}

const REDRAW_MS = 100;
const BAR_WIDTH = 12;

/** `340 ms` under a second, then `2.4 s`. */
export function elapsed(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

const UNITS = ["B", "KiB", "MiB", "GiB", "TiB"];

/** `512 B`, `9.5 KiB`, `480.0 MiB`: a small package is not `0.0 MiB`. */
export function bytesText(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${UNITS[unit]}`;
}

/** `[██████░░░░] 3.0 MiB of 5.0 MiB, 1.2 MiB/s`; without a total, the bytes and the rate. */
export function transferBar(bytes: number, total: number | undefined, ms: number): string {
  const rate = ms > 0 ? `${bytesText(Math.round((bytes / ms) * 1000))}/s` : "";
  if (!total) return `${bytesText(bytes)}${rate ? `, ${rate}` : ""}`;
  const filled = Math.min(BAR_WIDTH, Math.round((bytes / total) * BAR_WIDTH));
  const bar = `[${"█".repeat(filled)}${"░".repeat(BAR_WIDTH - filled)}]`;
  return `${bar} ${bytesText(bytes)} of ${bytesText(total)}${rate ? `, ${rate}` : ""}`;
}

/**
 * Apply's view on a terminal, as docker's and npm's progress: what has finished is printed once, above;
 * below it, one line per running step with its elapsed time (and, for a transfer, a bar with bytes
 * and rate) is redrawn in place until the step ends. Off a terminal the log of apply-output.ts is used
 * instead, so that a CI log stays one line per event.
 */
export class LiveView {
  readonly #running = new Map<string, Running>();
  readonly #terminal: Terminal;
  readonly #style: Style;
  readonly #now: () => number;
  #drawn = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(terminal: Terminal, style: Style, now: () => number = Date.now) {
    this.#terminal = terminal;
    this.#style = style;
    this.#now = now;
  }

  event(event: ApplyEvent): void {
    const id = event.step.id;
    // Step ids carry keys, and messages and errors the instance's words: printable before painted.
    const label = printable(`${id} (${event.step.environment})`);
    switch (event.type) {
      case "start":
        this.#running.set(id, { label, startedAt: this.#now() });
        this.#tick();
        break;
      case "progress": {
        const step = this.#running.get(id);
        if (!step) break;
        // A transfer reports every chunk: drawn at once when it begins, then by the timer.
        const begins = event.bytes !== undefined && step.bytes === undefined;
        const message = printable(event.message);
        const changed = message !== step.message;
        step.message = message;
        if (event.bytes !== undefined) {
          step.bytesSince ??= this.#now();
          step.bytes = event.bytes;
          step.total = event.total;
        }
        if (!begins && !changed) return;
        break;
      }
      case "done":
        this.#finish(
          id,
          "green",
          `✓ ${label} done in ${elapsed(event.ms ?? 0)}${event.verdict ? ` (${event.verdict.verdict})` : ""}`,
        );
        break;
      case "failed":
        this.#finish(
          id,
          "red",
          `✗ ${label} FAILED: ${printable(`${event.error.code} ${event.error.message}`)}`,
        );
        break;
      case "retry":
        this.#above(
          "yellow",
          `↻ ${label} try ${event.attempt} failed (${printable(event.error.message)}); trying again`,
        );
        break;
      case "reused":
        this.#above("gray", `✓ ${label} done in an earlier run, reused`);
        break;
      case "skipped":
        this.#above("gray", `- ${label} skipped, a step it depends on did not finish`);
        break;
      case "stopped":
        this.#finish(id, "yellow", `■ ${label} stopped by the interrupt between tries`);
        break;
    }
    this.#draw();
  }

  /** A line of text above the running steps (a notice while steps run). */
  say(line: string): void {
    this.#above(undefined, line);
    this.#draw();
  }

  /** Clears the running lines and stops redrawing: what follows is printed below what finished. */
  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#running.clear();
    this.#draw();
  }

  #finish(id: string, colour: Colour, line: string): void {
    this.#running.delete(id);
    this.#above(colour, line);
  }

  #pending: string[] = [];

  #above(colour: Colour | undefined, line: string): void {
    const fitted = this.#fit(line);
    this.#pending.push(colour ? this.#style.paint(colour, fitted) : fitted);
  }

  /** Keeps the elapsed times moving while anything runs, without keeping the process alive. */
  #tick(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => {
      if (this.#running.size === 0) {
        clearInterval(this.#timer);
        this.#timer = undefined;
        return;
      }
      this.#draw();
    }, REDRAW_MS);
    this.#timer.unref();
  }

  #fit(line: string, reserve = 0): string {
    const width = Math.max(20, this.#terminal.columns() - 1 - reserve);
    return line.length > width ? `${line.slice(0, width - 1)}…` : line;
  }

  /** `⋯ Package/GRC Core#download (local-dev) 1.2 s  downloading [████░░░░] 3.0 MiB of 5.0 MiB, 2.5 MiB/s` */
  #line(step: Running, now: number): string {
    const time = elapsed(now - step.startedAt);
    const transfer =
      step.bytes !== undefined
        ? ` ${transferBar(step.bytes, step.total, now - (step.bytesSince ?? step.startedAt))}`
        : "";
    const what = step.message ? `  ${step.message}${transfer}` : "";
    const text = this.#fit(`${step.label} ${time}${what}`, 2);
    const at = step.label.length + 1;
    const painted = `${text.slice(0, at)}${this.#style.paint("gray", text.slice(at, at + time.length))}${text.slice(at + time.length)}`;
    return `${this.#style.paint("cyan", "⋯")} ${painted}`;
  }

  /** Moves up over the running lines drawn last, clears to the end, prints what finished, then redraws. */
  #draw(): void {
    const now = this.#now();
    const up = this.#drawn > 0 ? `\r\x1b[${this.#drawn}A` : "\r";
    const running = [...this.#running.values()].map((step) => this.#line(step, now));
    const lines = [...this.#pending, ...running];
    this.#pending = [];
    this.#terminal.write(`${up}\x1b[J${lines.map((line) => `${line}\n`).join("")}`);
    this.#drawn = running.length;
  }
}
