import { Cluster, type ClusterNode, type ClusterOptions } from "ioredis";

/** How long a cluster may sit in `close` with nobody reconnecting before it reconnects itself (ms). */
export const HEAL_AFTER_MS = 1_000;

/**
 * An ioredis Cluster that does not stay closed when it was not asked to close.
 *
 * Why: ioredis 5 sets a cluster's status to `close` when its node pool drains, but only a
 * `connect()` in flight schedules the reconnect (its `once("close")` listener). When the pool
 * drains while a `connect()` is still resolving its startup nodes, that `connect()` aborts
 * ("Connection is aborted") and nothing reconnects: the cluster stays `close` with no node, and
 * every queued command waits forever. BullMQ's blocking-connection recovery after a failover
 * (`disconnect(false)` then `connect()`) runs into exactly this, and the worker stops fetching
 * jobs for good (seen in `npm run test:cluster`: a worker of one queue wedged after its master was
 * killed). The same lost listener leaves a `disconnect()` at `close`, never `end`, and BullMQ's
 * `Worker.close()` waits for `end` forever. This class remembers whether the last call asked for
 * a connection (`connect`) or for none (`disconnect()`/`quit()`); when the status is still `close`
 * {@link HEAL_AFTER_MS} after it became `close` (or still `disconnecting` that long after a
 * `disconnect()`), it connects again or ends, as asked.
 *
 * `duplicate()` (BullMQ's blocking connections) returns a HealingCluster too.
 */
export class HealingCluster extends Cluster {
  private wantConnected = true;
  private readonly startup: ClusterNode[];

  constructor(startupNodes: ClusterNode[], options: ClusterOptions = {}) {
    super(startupNodes, options);
    this.startup = startupNodes;
    this.on("close", () => {
      const timer = setTimeout(() => this.heal(), HEAL_AFTER_MS);
      timer.unref();
    });
  }

  /**
   * A cluster still `close`d: connects again when a connection is wanted; else finishes the close
   * ioredis left halfway (status `end`, queued commands rejected), which `disconnect()`'s callers
   * wait for (BullMQ's `Worker.close()` waits for `end` and hung without it).
   */
  private heal(): void {
    if (this.wantConnected) {
      if (this.status !== "close") return;
      super.connect().catch(() => {
        // A failed connect ends in `close` again (another heal) or in ioredis' own retry.
      });
    } else {
      if (this.status !== "close" && this.status !== "disconnecting") return;
      // ioredis' own end of a close (manuallyClosing is set: no retry; status "end"; the offline queue flushed).
      (this as unknown as { handleCloseEvent(): void }).handleCloseEvent();
    }
  }

  override connect(): Promise<void> {
    this.wantConnected = true;
    return super.connect();
  }

  override disconnect(reconnect = false): void {
    if (!reconnect) this.wantConnected = false;
    super.disconnect(reconnect);
    // A pool that was already empty never drains again: nothing would move the status to `end`.
    if (!reconnect) setTimeout(() => this.heal(), HEAL_AFTER_MS).unref();
  }

  override quit(callback?: (err?: Error | null, result?: "OK") => void): Promise<"OK"> {
    this.wantConnected = false;
    return callback ? super.quit(callback) : super.quit();
  }

  override duplicate(overrideStartupNodes: ClusterNode[] = [], overrideOptions: ClusterOptions = {}): HealingCluster {
    const nodes = overrideStartupNodes.length > 0 ? overrideStartupNodes : this.startup.slice(0);
    return new HealingCluster(nodes, { ...this.options, ...overrideOptions });
  }
}
