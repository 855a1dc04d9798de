/**
 * Coalesces concurrent calls into batches, per key, from what is waiting: a call that finds its
 * key idle is flushed at once (on the next turn of the event loop, so calls made in the same turn
 * share it — no timer, no added delay when nothing waits); calls made while the key's batches are
 * running wait and go together in the next batch. Under load batches grow by themselves up to
 * `maxBatch`; at rest they are batches of one. Not a queue: the items are BullMQ jobs already
 * taken by the worker (with their locks kept by BullMQ), and nothing is stored here.
 */

/** How one item of a batch ended. */
export type Settled<O> = { ok: true; value: O } | { ok: false; error: unknown };

/** Sizes of the batches (see {@link createBatcher}). */
export interface BatcherOptions {
  /** Most items in one batch. */
  maxBatch: number;
  /** Batches of one key running at once (one in the sandbox while the other writes). */
  inFlightPerKey: number;
}

interface Entry<I, O> {
  item: I;
  resolve(value: O): void;
  reject(error: unknown): void;
}

interface Group<I, O> {
  pending: Entry<I, O>[];
  running: number;
  scheduled: boolean;
}

/**
 * A batcher over `run`, which gets a key and its items and settles each item (in order).
 * @param keyOf - the batch key of an item (items of one batch share it).
 * @param distinctOf - items with the same value never share a batch (the later ones wait for the next).
 * @param soloOf - true for an item that must run in a batch of its own (e.g. one suspected of ending its worker).
 */
export function createBatcher<I, O>(args: {
  run: (key: string, items: I[]) => Promise<Settled<O>[]>;
  keyOf: (item: I) => string;
  distinctOf: (item: I) => string;
  soloOf?: (item: I) => boolean;
  options: BatcherOptions;
}) {
  const { run, keyOf, distinctOf, options } = args;
  const groups = new Map<string, Group<I, O>>();

  /** Takes the next batch of a group: distinct items, a solo item alone. */
  function take(group: Group<I, O>): Entry<I, O>[] {
    const first = group.pending[0]!;
    if (args.soloOf?.(first.item)) {
      group.pending.shift();
      return [first];
    }
    const taken: Entry<I, O>[] = [];
    const rest: Entry<I, O>[] = [];
    const seen = new Set<string>();
    let i = 0;
    // Stops at a full batch: a worker can hold hundreds of thousands of items (batch jobs of 1,000 spans).
    for (; i < group.pending.length && taken.length < options.maxBatch; i++) {
      const entry = group.pending[i]!;
      const distinct = distinctOf(entry.item);
      if (!seen.has(distinct) && !args.soloOf?.(entry.item)) {
        seen.add(distinct);
        taken.push(entry);
      } else rest.push(entry);
    }
    group.pending = i < group.pending.length ? rest.concat(group.pending.slice(i)) : rest;
    return taken;
  }

  function pump(key: string, group: Group<I, O>): void {
    while (group.running < options.inFlightPerKey && group.pending.length > 0) {
      const batch = take(group);
      group.running += 1;
      run(key, batch.map((e) => e.item))
        .then(
          (results) => batch.forEach((e, i) => {
            const r = results[i];
            if (!r) e.reject(new Error("batch returned no result for an item"));
            else if (r.ok) e.resolve(r.value);
            else e.reject(r.error);
          }),
          (error: unknown) => batch.forEach((e) => e.reject(error)),
        )
        .finally(() => {
          group.running -= 1;
          if (group.pending.length > 0) pump(key, group);
          else if (group.running === 0 && !group.scheduled) groups.delete(key);
        });
    }
  }

  return {
    /** Adds an item; settles with its own result once its batch ran. */
    submit(item: I): Promise<O> {
      const key = keyOf(item);
      let group = groups.get(key);
      if (!group) {
        group = { pending: [], running: 0, scheduled: false };
        groups.set(key, group);
      }
      const g = group;
      return new Promise<O>((resolve, reject) => {
        g.pending.push({ item, resolve, reject });
        if (g.scheduled) return;
        g.scheduled = true;
        setImmediate(() => {
          g.scheduled = false;
          pump(key, g);
        });
      });
    },
  };
}
