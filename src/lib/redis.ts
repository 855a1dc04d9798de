import { Cluster, Redis as SingleRedis, type ClusterOptions, type RedisOptions } from "ioredis";
import { HealingCluster } from "./healing-cluster.js";

/**
 * A Redis connection: one server (`ioredis` Redis) or a Redis Cluster (`ioredis` Cluster). Both
 * speak the same commands; on a cluster every command of this service names keys of one slot
 * (BullMQ's keys share the hash-tagged prefix of {@link queueKeyPrefix}; a rate limit, a lease
 * or a cache entry is one key).
 */
export type Redis = SingleRedis | Cluster;

/** One node of a Redis Cluster (a seed: ioredis discovers the others from it). */
export interface ClusterNode {
  host: string;
  port: number;
}

/** Where Redis is: `REDIS_URL` (credentials, TLS, and the server when no cluster is set) and the cluster's seed nodes. */
export interface RedisSettings {
  REDIS_URL: string;
  /** Seed nodes of a Redis Cluster; unset or empty: the one server of REDIS_URL. */
  REDIS_CLUSTER_NODES?: readonly ClusterNode[] | undefined;
  QUEUE_PREFIX: string;
}

/** True when the settings name a Redis Cluster. */
export function isCluster(settings: Pick<RedisSettings, "REDIS_CLUSTER_NODES">): boolean {
  return (settings.REDIS_CLUSTER_NODES?.length ?? 0) > 0;
}

/**
 * The key prefix of BullMQ's queues. On a cluster it is hash-tagged, `{<QUEUE_PREFIX>}`, so that
 * every key of every queue lands in one slot: BullMQ's Lua scripts touch several keys of a queue at
 * once, and a flow (an evaluation waiting for its dependencies' barriers) spans two queues. On one
 * server it is QUEUE_PREFIX as is (the keys of a deployment that moves to a cluster change, and
 * its queued jobs are queued again by the reconciler from Postgres).
 */
export function queueKeyPrefix(settings: Pick<RedisSettings, "REDIS_CLUSTER_NODES" | "QUEUE_PREFIX">): string {
  return isCluster(settings) ? `{${settings.QUEUE_PREFIX}}` : settings.QUEUE_PREFIX;
}

/** Username, password and TLS of a redis:// or rediss:// URL, applied to every node of a cluster. */
function credentialsOf(url: string): Pick<RedisOptions, "username" | "password" | "tls"> {
  const parsed = new URL(url);
  return {
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(parsed.protocol === "rediss:" ? { tls: {} } : {}),
  };
}

/**
 * The one factory of Redis connections: an ioredis Cluster when REDIS_CLUSTER_NODES is set
 * (with REDIS_URL's credentials and TLS on every node), else an ioredis Redis on REDIS_URL.
 * A bare URL is one server (tools and tests that read a queue of their own).
 * - "producer": fails fast when Redis is down (no offline queue, one retry), so an API request
 *   that enqueues work errors at once instead of hanging. On a cluster, a command that meets a
 *   failover (MOVED, CLUSTERDOWN, a dead master) is retried by ioredis while it re-reads the slots.
 * - "worker": BullMQ workers need `maxRetriesPerRequest: null` and reconnect forever.
 * On a cluster both are a {@link HealingCluster}: one that a drained node pool cannot leave closed.
 */
export function createRedis(settings: RedisSettings | string, role: "producer" | "worker"): Redis {
  if (typeof settings === "string") settings = { REDIS_URL: settings, QUEUE_PREFIX: "" };
  const node: RedisOptions =
    role === "producer" ? { maxRetriesPerRequest: 1, connectTimeout: 2_000 } : { maxRetriesPerRequest: null };
  if (isCluster(settings)) {
    const options: ClusterOptions = {
      redisOptions: { ...node, ...credentialsOf(settings.REDIS_URL) },
      enableOfflineQueue: role === "worker",
      // Retry through a failover: slots are re-read from a surviving node.
      retryDelayOnFailover: 200,
      retryDelayOnClusterDown: 300,
      retryDelayOnTryAgain: 200,
      maxRedirections: 32,
      slotsRefreshTimeout: 2_000,
      clusterRetryStrategy: (times) => Math.min(100 * times, 2_000),
    };
    // HealingCluster: ioredis can be left closed for good after a failover (see its TSDoc).
    return new HealingCluster(settings.REDIS_CLUSTER_NODES!.map((n) => ({ host: n.host, port: n.port })), options);
  }
  return role === "producer"
    ? new SingleRedis(settings.REDIS_URL, { ...node, enableOfflineQueue: false, lazyConnect: false })
    : new SingleRedis(settings.REDIS_URL, node);
}

/**
 * The servers to ask about their configuration: every master of a cluster (each holds its own
 * keys), else the one server.
 */
export function serversOf(redis: Redis): SingleRedis[] {
  return redis instanceof Cluster ? redis.nodes("master") : [redis];
}

/**
 * Parses REDIS_CLUSTER_NODES: comma-separated `host:port` seeds (`[v6]:port` for IPv6).
 * @throws Error naming the bad entry and the rule.
 */
export function parseClusterNodes(value: string): ClusterNode[] {
  return value
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(entry);
      const port = match ? Number(match[2]) : NaN;
      if (!match || port < 1 || port > 65535) throw new Error(`"${entry}" is not host:port (a port 1-65535)`);
      return { host: match[1]!.replace(/^\[|\]$/g, ""), port };
    });
}

/**
 * True when Redis answers PING within `timeoutMs`. A fail-fast connection refuses commands while
 * it is (re)connecting, so wait for it to be ready first, within the same time budget. On a
 * cluster the PING goes to one node; a failover in progress reads as not reachable.
 */
export async function redisReachable(redis: Redis, timeoutMs = 1_000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("timeout")), timeoutMs);
  });
  try {
    if (redis.status !== "ready") {
      await Promise.race([new Promise((resolve) => redis.once("ready", resolve)), timeout]);
    }
    return (await Promise.race([redis.ping(), timeout])) === "PONG";
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
