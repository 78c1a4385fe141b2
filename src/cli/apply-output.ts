import type { ApplyEvent } from "../apply/index.ts";

/**
 * One plain line per event (CI, --json, or not a terminal), or the same lines with transfer progress
 * on a terminal. Progress is shown in 10% steps so that a large transfer is a few lines, not
 * thousands.
 */
export function applyPrinter(options: { json: boolean; tty: boolean; write?: (line: string) => void }) {
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const lastTenth = new Map<string, number>();
  return (event: ApplyEvent) => {
    if (options.json) {
      const { step, ...rest } = event;
      write(
        JSON.stringify({
          event: event.type,
          step: step.id,
          op: step.op,
          environment: step.environment,
          ...rest,
        }),
      );
      return;
    }
    const prefix = `${event.step.id} (${event.step.environment})`;
    switch (event.type) {
      case "start":
        write(`${prefix}: started`);
        return;
      case "done":
        write(`${prefix}: done in ${event.ms ?? 0} ms`);
        return;
      case "reused":
        write(`${prefix}: done in an earlier run, reused`);
        return;
      case "stopped":
        write(
          `${prefix}: stopped by the interrupt between tries; checked before anything is written again on resume`,
        );
        return;
      case "skipped":
        write(`${prefix}: skipped, a step it depends on did not finish`);
        return;
      case "retry":
        write(`${prefix}: try ${event.attempt} failed (${event.error.message}); trying again`);
        return;
      case "failed":
        write(`${prefix}: FAILED: ${event.error.code} ${event.error.message}`);
        return;
      case "progress": {
        if (event.bytes === undefined) {
          write(`${prefix}: ${event.message}`);
          return;
        }
        const tenth = event.total
          ? Math.floor((event.bytes / event.total) * 10)
          : Math.floor(event.bytes / (10 * 1024 * 1024));
        // By message too: a promotion's download step reports its download and its upload.
        const key = `${event.step.id} ${event.message}`;
        if (lastTenth.get(key) === tenth) return;
        lastTenth.set(key, tenth);
        const amount = `${(event.bytes / 1024 / 1024).toFixed(1)} MiB`;
        const of = event.total ? ` of ${(event.total / 1024 / 1024).toFixed(1)} MiB (${tenth * 10}%)` : "";
        write(`${prefix}: ${event.message} ${amount}${of}`);
        return;
      }
    }
  };
}
