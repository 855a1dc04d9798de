// The backlog gauges of one scrape come from ONE read (metrics/registry.ts oncePerScrape): the
// oldest age never shows the previous scrape's value beside the current count (a new user saw
// `oodle_evaluations_queued 0` beside an age of 8.8 s, then 2,700 beside 0).
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { createRedis } from "../../src/lib/redis.js";
import { createMetrics } from "../../src/modules/metrics/registry.js";

const redis = createRedis(loadConfig(process.env).REDIS_URL, "producer");
afterAll(() => redis.disconnect());

/** The value of an unlabelled family in the text exposition. */
function value(text: string, name: string): number | undefined {
  const match = new RegExp(`^${name} (\\S+)$`, "m").exec(text);
  return match ? Number(match[1]) : undefined;
}

describe("metrics scrape", () => {
  it("reports the owed count and its oldest age from the same read, every scrape", async () => {
    let owed: { queued: number; oldestAgeSeconds: number } | Error = { queued: 2_700, oldestAgeSeconds: 4.5 };
    let reads = 0;
    const metrics = createMetrics({
      redis,
      queuePrefix: `oodle-test-scrape-${randomUUID().slice(0, 8)}`,
      pool: () => undefined,
      owed: async () => {
        reads += 1;
        if (owed instanceof Error) throw owed;
        return owed;
      },
    });
    try {
      const first = (await metrics.scrape()).body;
      expect([value(first, "oodle_evaluations_queued"), value(first, "oodle_evaluations_queued_oldest_age_seconds")]).toEqual([2_700, 4.5]);
      expect(reads).toBe(1);
      owed = { queued: 0, oldestAgeSeconds: 0 };
      const second = (await metrics.scrape()).body;
      expect([value(second, "oodle_evaluations_queued"), value(second, "oodle_evaluations_queued_oldest_age_seconds")]).toEqual([0, 0]);
      expect(reads).toBe(2);
      // Postgres down: both are NaN (unknown), neither a stale value nor a made-up zero.
      owed = new Error("connection refused");
      const third = (await metrics.scrape()).body;
      expect([value(third, "oodle_evaluations_queued"), value(third, "oodle_evaluations_queued_oldest_age_seconds")]).toEqual([Number.NaN, Number.NaN]);
    } finally {
      await metrics.close();
    }
  });
});
