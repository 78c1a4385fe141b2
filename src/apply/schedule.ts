/*
 * Which steps of a plan may start: pure bookkeeping, no I/O. A step is ready when every step it
 * depends on has finished, and blocked (to be skipped) when one of them failed or was skipped.
 * Each step counts its unfinished dependencies and each step knows its dependents, so that a finish
 * or a failure touches only the steps it concerns, never the whole plan again.
 */

export interface SchedulableStep {
  id: string;
  dependsOn: readonly string[];
}

export class Schedule<S extends SchedulableStep> {
  private readonly order = new Map<string, number>();
  private readonly dependents = new Map<string, S[]>();
  /** Unfinished dependencies of each waiting step. */
  private readonly unmet = new Map<string, number>();
  private readonly waiting = new Map<string, S>();
  /** Waiting steps whose dependencies have all finished, in plan order. */
  private readyQueue: S[] = [];
  /** Waiting steps cut off by a failure, not yet reported. */
  private blockedQueue: S[] = [];
  private readonly settled = new Set<string>();

  /** `steps` in plan order; `finished` holds the ids already done (a resumed run's, a carried plan's). */
  constructor(steps: readonly S[], finished: Iterable<string> = []) {
    const done = new Set(finished);
    steps.forEach((step, index) => {
      this.order.set(step.id, index);
    });
    for (const step of steps) {
      if (done.has(step.id)) continue;
      this.waiting.set(step.id, step);
      const unmet = new Set(step.dependsOn.filter((id) => !done.has(id)));
      this.unmet.set(step.id, unmet.size);
      for (const id of unmet) {
        const list = this.dependents.get(id);
        if (list) list.push(step);
        else this.dependents.set(id, [step]);
      }
      if (unmet.size === 0) this.readyQueue.push(step);
    }
  }

  /** Steps not started: waiting, or blocked and not yet taken. */
  get size(): number {
    return this.waiting.size + this.blockedQueue.length;
  }

  /** Takes up to `limit` ready steps, in plan order; they count as started. */
  take(limit: number): S[] {
    const taken = this.readyQueue.splice(0, Math.max(0, limit));
    for (const step of taken) this.waiting.delete(step.id);
    return taken;
  }

  /** A started step finished: the steps that waited only on it become ready. */
  finish(id: string): void {
    if (this.settled.has(id)) return;
    this.settled.add(id);
    for (const step of this.dependents.get(id) ?? []) {
      if (!this.waiting.has(step.id)) continue;
      const left = (this.unmet.get(step.id) ?? 1) - 1;
      this.unmet.set(step.id, left);
      if (left === 0) this.insertReady(step);
    }
  }

  /** A started step failed: every waiting step that depends on it, directly or not, is blocked. */
  fail(id: string): void {
    if (this.settled.has(id)) return;
    this.settled.add(id);
    const cut: S[] = [];
    const stack = [...(this.dependents.get(id) ?? [])];
    for (let step = stack.pop(); step; step = stack.pop()) {
      if (!this.waiting.has(step.id)) continue;
      this.waiting.delete(step.id);
      this.settled.add(step.id);
      cut.push(step);
      stack.push(...(this.dependents.get(step.id) ?? []));
    }
    // A ready step has no unfinished dependency left, so none of `cut` is in the ready queue.
    if (cut.length > 0) this.blockedQueue = this.byOrder([...this.blockedQueue, ...cut]);
  }

  /** The steps blocked since the last call, in plan order. */
  takeBlocked(): S[] {
    const blocked = this.blockedQueue;
    this.blockedQueue = [];
    return blocked;
  }

  /** Removes and returns every step not started, blocked ones included, in plan order. */
  drain(): S[] {
    const left = this.byOrder([...this.blockedQueue, ...this.waiting.values()]);
    this.blockedQueue = [];
    this.readyQueue = [];
    this.waiting.clear();
    return left;
  }

  private insertReady(step: S): void {
    const at = this.orderOf(step);
    let low = 0;
    let high = this.readyQueue.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.orderOf(this.readyQueue[mid] as S) < at) low = mid + 1;
      else high = mid;
    }
    this.readyQueue.splice(low, 0, step);
  }

  private orderOf(step: S): number {
    return this.order.get(step.id) ?? 0;
  }

  private byOrder(steps: S[]): S[] {
    return steps.sort((a, b) => this.orderOf(a) - this.orderOf(b));
  }
}
