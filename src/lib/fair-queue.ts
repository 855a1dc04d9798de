import { RateLimitedError } from "./errors.js";

/** The bounds of a {@link FairQueue}. */
export interface FairQueueOptions {
  /** Tasks running at once (all owners together). */
  concurrency: number;
  /**
   * Sum of the `bytes` of the running tasks (e.g. the sources being parsed: the inspector's memory
   * grows with its input): a task starts only when it fits beside the running ones, or runs alone
   * when it is larger than this by itself.
   */
  maxBytesInFlight: number;
  /**
   * Tasks of at most this many bytes do not count toward `maxBytesInFlight` and start in any free
   * slot, even ahead of a large task that waits for room (default 0: none). So a workspace's
   * one-liner does not wait behind another's 256 KiB source; memory stays bounded by
   * `maxBytesInFlight + concurrency × smallTaskBytes`.
   */
  smallTaskBytes?: number;
  /** Tasks one owner may have waiting (not yet started); past it, its next task is refused. */
  maxQueuedPerOwner: number;
  /** Tasks waiting over every owner; past it, any owner's next task is refused. */
  maxQueued: number;
  /** What the refusal names ("source inspections"). */
  what: string;
}

/** What a queue reports of a task (tests, metrics). */
export interface FairQueueObserver {
  started?(owner: string, label: string | undefined): void;
}

interface Waiting {
  bytes: number;
  label: string | undefined;
  start: () => void;
}

/**
 * A queue shared fairly between owners (workspaces): each owner has its own FIFO, and a freed slot
 * goes to the next owner in turn (round-robin over the owners that have a task waiting), so one
 * owner's flood delays another owner's task by at most one task per owner in front of it, never
 * by the length of the flood. Bounded: past `maxQueuedPerOwner` waiting tasks of an owner, or
 * `maxQueued` in all, a new task is refused at once with LIMIT_EXCEEDED (HTTP 429) and
 * `retryAfterSeconds`: the time the queue in front of that owner needs at the mean task duration
 * measured so far (at least 1 s).
 */
export interface FairQueue {
  /**
   * Runs `task` in `owner`'s turn. @param bytes - the task's size toward `maxBytesInFlight`.
   * @throws RateLimitedError when the owner's queue (or the whole queue) is full; else what `task` throws.
   */
  run<T>(owner: string, bytes: number, task: () => Promise<T>, label?: string): Promise<T>;
  /** Tasks running and waiting now (per owner and in all). */
  stats(): { running: number; bytesInFlight: number; queued: number; owners: Record<string, number> };
}

/** Creates a {@link FairQueue}. */
export function createFairQueue(options: FairQueueOptions, observer: FairQueueObserver = {}): FairQueue {
  const queues = new Map<string, Waiting[]>();
  /** The round: owners with a task waiting, next first; an owner served goes to the back, one that had nothing waiting joins before those already served this round. */
  let order: string[] = [];
  /** Owners with a task running or started while they had more waiting (a new owner goes before them in the round). */
  const served = new Set<string>();
  const runningBy = new Map<string, number>();
  let running = 0;
  let bytesInFlight = 0;
  let queued = 0;
  let meanMs = 250; // a first guess until tasks have been timed
  let timed = 0;
  const isSmall = (bytes: number) => bytes <= (options.smallTaskBytes ?? 0);

  /** The next owner in turn: the first of the map (served owners go to its end). */
  function pump(): void {
    while (running < options.concurrency && queues.size > 0) {
      const fits = (w: Waiting) => isSmall(w.bytes) || running === 0 || bytesInFlight + w.bytes <= options.maxBytesInFlight;
      // The owner in turn; when its task waits for room, the first owner after it whose next task is small.
      const turn = fits(queues.get(order[0]!)![0]!) ? 0 : order.findIndex((o) => isSmall(queues.get(o)![0]!.bytes));
      if (turn < 0) return; // the large task in turn waits for room
      const owner = order[turn]!;
      const list = queues.get(owner)!;
      const head = list[0]!;
      list.shift();
      queued -= 1;
      order.splice(turn, 1);
      if (list.length) order.push(owner); // to the back of the round
      else queues.delete(owner);
      served.add(owner);
      runningBy.set(owner, (runningBy.get(owner) ?? 0) + 1);
      running += 1;
      if (!isSmall(head.bytes)) bytesInFlight += head.bytes;
      observer.started?.(owner, head.label);
      head.start();
    }
  }

  function retryAfter(owner: string): number {
    const ahead = queued + running;
    const own = queues.get(owner)?.length ?? 0;
    // Round-robin: the owner's next task waits for about one task of every owner in front, per own task.
    const turns = Math.max(own, 1) * Math.max(queues.size, 1);
    return Math.max(1, Math.ceil((Math.min(ahead, turns) * meanMs) / options.concurrency / 1000));
  }

  return {
    run<T>(owner: string, bytes: number, task: () => Promise<T>, label?: string): Promise<T> {
      const own = queues.get(owner)?.length ?? 0;
      if (own >= options.maxQueuedPerOwner || queued >= options.maxQueued) {
        const full = own >= options.maxQueuedPerOwner ? `this workspace already has ${own} waiting (at most ${options.maxQueuedPerOwner})` : `${queued} are waiting over every workspace (at most ${options.maxQueued})`;
        return Promise.reject(new RateLimitedError(`too many ${options.what} queued: ${full}; retry in ${retryAfter(owner)} s`, retryAfter(owner)));
      }
      return new Promise<T>((resolve, reject) => {
        const start = () => {
          const began = performance.now();
          task()
            .then(resolve, reject)
            .finally(() => {
              const ms = performance.now() - began;
              timed += 1;
              meanMs += (ms - meanMs) / Math.min(timed, 20); // the mean of the last ~20
              running -= 1;
              if (!isSmall(bytes)) bytesInFlight -= bytes;
              const left = (runningBy.get(owner) ?? 1) - 1;
              if (left > 0) runningBy.set(owner, left);
              else {
                runningBy.delete(owner);
                if (!queues.has(owner)) served.delete(owner);
              }
              pump();
            });
        };
        const list = queues.get(owner);
        if (list) list.push({ bytes, label, start });
        else {
          queues.set(owner, [{ bytes, label, start }]);
          // Before the owners already served this round (they wait their next turn behind it).
          const at = order.findIndex((o) => served.has(o));
          order = at < 0 ? [...order, owner] : [...order.slice(0, at), owner, ...order.slice(at)];
        }
        queued += 1;
        pump();
      });
    },
    stats() {
      return { running, bytesInFlight, queued, owners: Object.fromEntries([...queues].map(([o, l]) => [o, l.length])) };
    },
  };
}
