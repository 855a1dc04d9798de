import { z } from "zod";
import { parseKeyRing } from "./lib/key-ring.js";
import { parseClusterNodes } from "./lib/redis.js";

/** A comma-separated list of workspace ids (UUIDs), at least one. */
const workspaceList = z
  .string()
  .transform((value) => value.split(",").map((id) => id.trim()).filter((id) => id !== ""))
  .pipe(z.array(z.uuid({ error: "must be a comma-separated list of workspace ids (UUIDs)" })).min(1, "must name at least one workspace id"));

/**
 * The service's configuration: one zod schema over the environment, parsed once at start.
 * Defaults are for local use on a machine of this project's kind; no secret has a default.
 */
export const configSchema = z.object({
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgresql:// URL")
    .default("postgresql://postgres@127.0.0.1:5432/oodle"),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, "must be a redis:// URL")
    .default("redis://127.0.0.1:6379"),
  /**
   * Seed nodes of a Redis Cluster, comma-separated `host:port` (e.g. `redis-1:6379,redis-2:6379`).
   * Set: every connection is an ioredis Cluster (REDIS_URL then gives only credentials and TLS) and
   * BullMQ's keys are prefixed `{QUEUE_PREFIX}` (one hash slot). Unset: the one server of REDIS_URL.
   */
  REDIS_CLUSTER_NODES: z
    .string()
    .transform((value, ctx) => {
      try {
        const nodes = parseClusterNodes(value);
        if (nodes.length === 0) ctx.addIssue({ code: "custom", message: "must list at least one host:port" });
        return nodes;
      } catch (error) {
        ctx.addIssue({ code: "custom", message: `must be comma-separated host:port seeds: ${(error as Error).message}` });
        return z.NEVER;
      }
    })
    .optional(),
  HOST: z.string().min(1).default("127.0.0.1"),
  PORT: z.coerce.number().int("must be a whole number").min(0).max(65535).default(4000),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** Prefix of BullMQ keys in Redis, so tests and a dev service can share one Redis. */
  QUEUE_PREFIX: z.string().regex(/^[a-z0-9_-]+$/, "must be lower-case letters, digits, _ or -").default("oodle"),
  /** Bounded time for a graceful shutdown, in milliseconds. */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  /** How often the worker's reconciler re-queues owed evaluations and experiment batches that Redis lost (ms; 0: never). */
  RECONCILE_INTERVAL_MS: z.coerce.number().int().min(0).max(3_600_000).default(15_000),
  /**
   * How often the worker's due poller queues the trace and session groups that came due
   * (modules/runs/group-schedule.ts; ms; 0: never). A group runs at most this late after its due time,
   * plus the queue's wait.
   */
  GROUP_POLL_INTERVAL_MS: z.coerce.number().int().min(0).max(60_000).default(250),
  /** How long a queued trace or session generation may go without its run before the poller queues it again (its job lost with Redis; ms). */
  GROUP_REQUEUE_AFTER_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(120_000),
  /** How old an owed evaluation (or the last re-queue of one) must be before the reconciler looks at it (ms). */
  RECONCILE_GRACE_MS: z.coerce.number().int().min(0).max(86_400_000).default(30_000),
  /**
   * What to do at start when Redis may evict keys (`maxmemory-policy` other than `noeviction`:
   * BullMQ's jobs and locks could vanish): `warn` (log), `refuse` (the process does not start) or `off`.
   */
  REDIS_EVICTION_CHECK: z.enum(["warn", "refuse", "off"]).default("warn"),
  /**
   * Per-workspace bound on queued live evaluations (owed and not yet run): at or past it ingest
   * refuses the whole batch, storing nothing, with LIMIT_EXCEEDED and a retry-after (0: no bound).
   */
  MAX_QUEUED_EVALUATIONS_PER_WORKSPACE: z.coerce.number().int().min(0).default(100_000),
  /** Per-workspace requests per minute: ingestSpans calls (0: no limit). */
  RATE_LIMIT_INGEST_PER_MINUTE: z.coerce.number().int().min(0).default(600),
  /** Per-workspace tryCode calls per minute (0: no limit). */
  RATE_LIMIT_TRY_CODE_PER_MINUTE: z.coerce.number().int().min(0).default(60),
  /** Per-workspace mutations per minute, other than ingestSpans and tryCode (0: no limit). */
  RATE_LIMIT_MUTATIONS_PER_MINUTE: z.coerce.number().int().min(0).default(600),
  /**
   * Per-workspace source inspections per minute (0: no limit): every source the API parses for a
   * workspace's request takes one (validateTemplate, tryCode, template and library saves; 30
   * aliases of validateTemplate take 30). Past it: LIMIT_EXCEEDED, HTTP 429, retryAfterSeconds.
   */
  RATE_LIMIT_INSPECTIONS_PER_MINUTE: z.coerce.number().int().min(0).default(120),
  /** tryCode runs one workspace may have in flight at once (over every API process); default 1, at most 16. */
  TRY_CODE_CONCURRENCY_PER_WORKSPACE: z.coerce.number().int("must be a whole number").min(1, "must be at least 1").max(16, "must be at most 16").default(1),
  /** How long a tryCode call over TRY_CODE_CONCURRENCY_PER_WORKSPACE waits for a place before it is refused (ms; 0: refused at once). */
  TRY_CODE_WAIT_MS: z.coerce.number().int("must be a whole number").min(0).max(30_000, "must be at most 30000").default(5_000),
  /**
   * Per-workspace read points per minute (0: no limit): each query or subscription takes 1 point
   * per started 1,000 of its read cost (src/graphql/query-cost.ts), at least 1.
   */
  RATE_LIMIT_READS_PER_MINUTE: z.coerce.number().int().min(0).default(1_200),
  /** Cap of an OTLP/HTTP request body (`POST /v1/traces`), in bytes, compressed and after decompression. */
  OTLP_MAX_BODY_BYTES: z.coerce.number().int("must be a whole number").min(1024).max(64 * 1024 * 1024).default(4 * 1024 * 1024),
  /** Bearer token of `GET /metrics` on the API port; unset: /metrics is not served there (use METRICS_PORT). */
  METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  /** Port of a separate metrics listener (`/metrics`, no token) on METRICS_HOST, in every role; unset: none. */
  METRICS_PORT: z.coerce.number().int("must be a whole number").min(0).max(65535).optional(),
  /** Address of the metrics listener (an admin address; loopback by default). */
  METRICS_HOST: z.string().min(1).default("127.0.0.1"),
  /**
   * Where a worker running as root keeps its sandbox state (box locks; the mount point of each
   * runner's private mounts): root's, mode 0700, no symlink on its path (src/execution/state-dir.ts
   * reads and checks it before every use; this only stops a relative path at start).
   */
  OODLE_SANDBOX_STATE_DIR: z.string().regex(/^\/./, "must be an absolute path other than /").default("/run/oodle-sandbox"),
  /** OTLP/HTTP logs endpoint (e.g. http://collector:4318/v1/logs) that receives every live run's scores as `gen_ai.evaluation.result` events; unset: no export. */
  SCORE_EXPORT_OTLP_ENDPOINT: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).optional(),
  /**
   * Key sealing alert destinations' secrets at rest (webhook signing secrets, Slack webhook URLs):
   * 32 bytes, base64 (`openssl rand -base64 32`). Unset: stored unsealed (the destination says
   * `sealed: false`), still never returned after creation, logged or exported.
   */
  ALERT_SECRETS_KEY: z
    .string()
    .refine((v) => Buffer.from(v, "base64").length === 32, "must be 32 bytes, base64-encoded (openssl rand -base64 32)")
    .optional(),
  /**
   * The keys sealing connections' API keys at rest (src/modules/connections, docs/connections.md):
   * `id1:base64key,id2:base64key`, each 32 bytes (`openssl rand -base64 32`). The first seals new
   * keys; all open. Unset: the service starts, and creating a connection (or rotating its key)
   * is refused naming this variable. Malformed: the process does not start.
   */
  CONNECTION_KEYS: z
    .string()
    .transform((value, ctx) => {
      try {
        return parseKeyRing(value);
      } catch (error) {
        ctx.addIssue({ code: "custom", message: (error as Error).message });
        return z.NEVER;
      }
    })
    .optional(),
  /** Whether connections may reach loopback and private addresses (local model servers). */
  CONNECTION_ALLOW_PRIVATE_DESTINATIONS: z.enum(["true", "false"], { error: "must be true or false" }).default("false").transform((v) => v === "true"),
  /** Time one testConnection call to a provider may take (ms). */
  CONNECTION_TEST_TIMEOUT_MS: z.coerce.number().int("must be a whole number").min(100, "must be at least 100").max(120_000, "must be at most 120000").default(15_000),
  /** The longest one judge call may take, ms (a slower answer is a timeout, retried). */
  JUDGE_CALL_TIMEOUT_MS: z.coerce.number().int("must be a whole number").min(100, "must be at least 100").max(600_000, "must be at most 600000").default(60_000),
  /** Alert destinations on loopback, private or link-local addresses are refused unless this is true (tests, on-premises receivers). */
  ALERT_ALLOW_PRIVATE_DESTINATIONS: z.enum(["true", "false"], { error: "must be true or false" }).default("false").transform((v) => v === "true"),
  /** Attempts of one alert delivery before it is marked failed. */
  ALERT_DELIVERY_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(6),
  /** Backoff before the second attempt of a delivery (ms), doubling with each attempt after (5 s, 10 s, 20 s, …). */
  ALERT_RETRY_BASE_MS: z.coerce.number().int().min(1).max(3_600_000).default(5_000),
  /** Time one delivery attempt may take (ms). */
  ALERT_DELIVERY_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /**
   * A worker pool of its own for some workspaces (sandbox/README.md § Known residuals: the host's
   * page cache is shared by every box on a host): comma-separated workspace ids whose sandboxed
   * jobs (live evaluations, experiment and backfill batches) this worker runs, and no other's.
   * Unset: every workspace's but those of WORKER_EXCLUDE_WORKSPACES.
   */
  WORKER_WORKSPACES: workspaceList.optional(),
  /** Comma-separated workspace ids whose sandboxed jobs this worker leaves to their own pool (see WORKER_WORKSPACES). */
  WORKER_EXCLUDE_WORKSPACES: workspaceList.optional(),
  /**
   * Days a workspace's spans (with their runs and scores) and run history are kept unless it sets
   * its own retention (src/modules/retention); 0: forever. At most RETENTION_MAX_DAYS when that is set.
   */
  RETENTION_DEFAULT_DAYS: z.coerce.number().int("must be a whole number").min(0).max(36_500).default(0),
  /** The ceiling of every workspace's retention, in days (0: none, and a workspace may keep its data forever). */
  RETENTION_MAX_DAYS: z.coerce.number().int("must be a whole number").min(0).max(36_500).default(0),
  /** How often the worker's retention sweep runs (ms; 0: never). */
  RETENTION_INTERVAL_MS: z.coerce.number().int("must be a whole number").min(0).max(86_400_000).default(300_000),
  /** Spans deleted per transaction by the retention sweep (with their runs, scores and history): short transactions, no long DELETE. */
  RETENTION_BATCH_SIZE: z.coerce.number().int("must be a whole number").min(1).max(10_000).default(500),
}).superRefine((config, ctx) => {
  if (config.RETENTION_MAX_DAYS > 0 && (config.RETENTION_DEFAULT_DAYS === 0 || config.RETENTION_DEFAULT_DAYS > config.RETENTION_MAX_DAYS)) {
    ctx.addIssue({
      code: "custom",
      path: ["RETENTION_DEFAULT_DAYS"],
      message: `must be 1 to RETENTION_MAX_DAYS (${config.RETENTION_MAX_DAYS}) when a ceiling is set (0, forever, is past the ceiling)`,
    });
  }
});

/** The parsed configuration. */
export type Config = z.infer<typeof configSchema>;

/** A bad environment value; the message names every offending variable and its rule. */
export class ConfigError extends Error {
  constructor(readonly issues: { variable: string; message: string }[]) {
    super(`invalid configuration: ${issues.map((i) => `${i.variable}: ${i.message}`).join("; ")}`);
    this.name = "ConfigError";
  }
}

/**
 * Parses the environment into a Config.
 * @param env - the variables (process.env by default); empty strings count as unset.
 * @throws ConfigError naming each variable that breaks its rule.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = configSchema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => ({ variable: String(i.path[0]), message: i.message })));
  }
  if (parsed.data.WORKER_WORKSPACES && parsed.data.WORKER_EXCLUDE_WORKSPACES) {
    throw new ConfigError([{ variable: "WORKER_WORKSPACES", message: "set either WORKER_WORKSPACES (a pool's workers) or WORKER_EXCLUDE_WORKSPACES (the other workers), not both" }]);
  }
  return parsed.data;
}
