/*
 * `egp apply --yes | head -2`: once the reader of stdout (or stderr) goes away, each write fails
 * with EPIPE. Stopping the process there would leave an apply half done, so egp stops writing to
 * that stream and carries on to the run's own end; its exit code is the run's.
 */

type Write = typeof process.stdout.write;

function keepGoingWithout(stream: NodeJS.WriteStream): void {
  let gone = false;
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.write = ((...args: unknown[]) => {
    if (!gone) return write(...args);
    const callback = args.findLast((arg) => typeof arg === "function") as (() => void) | undefined;
    if (callback) queueMicrotask(callback);
    return true;
  }) as Write;
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    gone = true;
  });
}

let installed = false;

/** Called once, before anything is written. */
export function survivePipeClosures(): void {
  if (installed) return;
  installed = true;
  keepGoingWithout(process.stdout);
  keepGoingWithout(process.stderr);
}
