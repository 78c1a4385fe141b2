/*
 * Every bench ends with one line, `PASS` or `FAIL (reason)`, and is bounded in time: past its
 * deadline it prints FAIL and exits, whatever is still running.
 */

export interface Verdict {
  pass: boolean;
  reason?: string;
}

export interface FinishOptions {
  /** The line said instead of PASS or FAIL, with exit code 0, when the figures can't count. */
  noVerdict?: () => string | undefined;
  /** Lines after the verdict, whatever it is (on a timeout too). */
  after?: () => void;
}

export async function finish(
  deadlineMs: number,
  main: () => Promise<Verdict>,
  options: FinishOptions = {},
): Promise<void> {
  const deadline = setTimeout(() => {
    console.log(`FAIL (did not finish within ${Math.round(deadlineMs / 1000)} s)`);
    options.after?.();
    process.exit(1);
  }, deadlineMs);
  deadline.unref();
  try {
    const verdict = await main();
    const none = options.noVerdict?.();
    if (none !== undefined) {
      console.log(none);
      process.exitCode = 0;
    } else {
      console.log(verdict.pass ? "PASS" : `FAIL (${verdict.reason ?? "target missed"})`);
      process.exitCode = verdict.pass ? 0 : 1;
    }
  } catch (error) {
    console.log(`FAIL (${(error as Error).message})`);
    process.exitCode = 1;
  } finally {
    clearTimeout(deadline);
    options.after?.();
  }
}
