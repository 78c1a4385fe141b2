/*
 * When a process's first request reaches a server: the server child is started with
 * `--import FIRST_REQUEST_IMPORT`, which prints `first-request <epoch ms>` on its stdout for the
 * first request of each new connection (Node's HTTP server announces every request on a
 * diagnostics channel), one short line per connection rather than one per request. The parent
 * feeds that stdout to FirstRequests; a run's start-up is then the earliest arrival after its
 * spawn. Both sides read the system clock, so the two processes' times compare.
 */

export const FIRST_REQUEST_IMPORT =
  "data:text/javascript,import{subscribe}from'node:diagnostics_channel';const seen=new WeakSet();subscribe('http.server.request.start',({socket})=>{if(!seen.has(socket)){seen.add(socket);process.stdout.write('first-request '+Date.now()+'\\n')}})";

const LINE = /^first-request (\d+)$/;

/** The arrivals reported by one or more instrumented servers. */
export class FirstRequests {
  private readonly arrivals: number[] = [];
  private readonly partial = new Map<unknown, string>();

  /** How many arrivals have been reported. */
  get count(): number {
    return this.arrivals.length;
  }

  /**
   * Takes a chunk of a server's stdout (`from` tells servers apart, since a line may be split
   * between chunks) and returns its other complete lines, each with its newline.
   */
  feed(chunk: string, from: unknown = undefined): string {
    const lines = `${this.partial.get(from) ?? ""}${chunk}`.split("\n");
    this.partial.set(from, lines.pop() ?? "");
    let rest = "";
    for (const line of lines) {
      const at = LINE.exec(line)?.[1];
      if (at) this.arrivals.push(Number(at));
      else rest += `${line}\n`;
    }
    return rest;
  }

  /** From `spawnedAt` (epoch ms) to the first arrival within the next `ms`; NaN when none came. */
  startUpMs(spawnedAt: number, ms: number): number {
    const during = this.arrivals.filter((at) => at >= spawnedAt && at <= spawnedAt + ms);
    return during.length === 0 ? Number.NaN : Math.min(...during) - spawnedAt;
  }
}
