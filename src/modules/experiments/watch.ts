import { setTimeout as sleep } from "node:timers/promises";

/** A snapshot the progress subscription sends: the experiment's status and its progress. */
export interface Snapshot<P> {
  status: string;
  progress: P;
}

/** Statuses after which nothing changes unless someone retries. */
export const TERMINAL_STATUSES = new Set(["completed", "cancelled"]);

/**
 * Polls `load` every `intervalMs` and yields each snapshot that differs from the previous one;
 * ends after yielding a status in `terminal` (default: completed or cancelled). Polling the database keeps it
 * correct across processes (the API and the workers need not share memory or a channel); one
 * grouped query per subscriber and interval is cheap.
 */
export async function* watchSnapshots<S extends Snapshot<unknown>>(load: () => Promise<S>, intervalMs = 500, terminal: ReadonlySet<string> = TERMINAL_STATUSES): AsyncGenerator<S> {
  let previous = "";
  for (;;) {
    const snapshot = await load();
    const text = JSON.stringify(snapshot);
    if (text !== previous) {
      previous = text;
      yield snapshot;
    }
    if (terminal.has(snapshot.status)) return;
    await sleep(intervalMs);
  }
}
