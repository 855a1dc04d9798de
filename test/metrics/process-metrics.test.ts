// prom-client's default metrics carry the service's prefix once: `oodle_process_cpu_seconds_total`,
// not `oodle_process_process_cpu_seconds_total` (a new user's dashboard query found nothing).
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { createRedis } from "../../src/lib/redis.js";
import { createMetrics } from "../../src/modules/metrics/registry.js";

const redis = createRedis(loadConfig(process.env).REDIS_URL, "producer");
afterAll(() => redis.disconnect());

describe("process metrics", () => {
  it("are named oodle_process_* and oodle_nodejs_*, each with one prefix", async () => {
    const metrics = createMetrics({ redis, queuePrefix: `oodle-test-process-${randomUUID().slice(0, 8)}`, pool: () => undefined, owed: async () => ({ queued: 0, oldestAgeSeconds: 0 }) });
    try {
      const body = (await metrics.scrape()).body;
      const families = [...body.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!);
      expect(families).toEqual(expect.arrayContaining(["oodle_process_cpu_seconds_total", "oodle_process_resident_memory_bytes", "oodle_process_start_time_seconds", "oodle_nodejs_eventloop_lag_seconds", "oodle_nodejs_heap_size_used_bytes"]));
      expect(families.filter((name) => /^oodle_process_(process|nodejs)_/.test(name))).toEqual([]);
      expect(families.filter((name) => !name.startsWith("oodle_"))).toEqual([]);
      expect(body).toMatch(/^oodle_process_cpu_seconds_total \d/m);
    } finally {
      await metrics.close();
    }
  });
});
