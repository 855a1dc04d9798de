// The tryCode concurrency gate on Redis (modules/try-code/concurrency.ts): the cap counts every
// process's runs, a place is given back on leave, and a lease of a process that died expires.
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { createLogger } from "../../src/lib/logger.js";
import { createRedis } from "../../src/lib/redis.js";
import { redisConcurrencyGate } from "../../src/modules/try-code/concurrency.js";

const config = loadConfig();
const redis = createRedis(config.REDIS_URL, "worker");
const logger = createLogger("silent");
afterAll(() => redis.disconnect());

describe("tryCode concurrency gate (Redis)", () => {
  it("admits at most the limit across two gates (two processes), and gives a place back on leave", async () => {
    const prefix = `oodle-test-gate-${randomUUID().slice(0, 8)}`;
    const a = redisConcurrencyGate(redis, prefix, 3, logger);
    const b = redisConcurrencyGate(redis, prefix, 3, logger);
    const held = [await a.enter("ws"), await b.enter("ws"), await a.enter("ws")];
    expect(held.every(Boolean)).toBe(true);
    expect(await b.enter("ws")).toBeNull();
    expect(await a.enter("other-ws")).not.toBeNull(); // per workspace
    await held[0]!();
    await held[0]!(); // idempotent: frees one place only
    const again = await b.enter("ws");
    expect(again).not.toBeNull();
    expect(await a.enter("ws")).toBeNull();
    for (const leave of [held[1], held[2], again]) await leave!();
    expect(await redis.zcard(`${prefix}:try-code:running:ws`)).toBe(0);
  });

  it("drops the leases of a process that died (expired) before counting", async () => {
    const prefix = `oodle-test-gate-${randomUUID().slice(0, 8)}`;
    const key = `${prefix}:try-code:running:ws`;
    const [seconds] = await redis.time();
    // Two leases that expired a second ago, as a dead process leaves them (nobody renews them).
    await redis.zadd(key, Number(seconds) * 1000 - 1000, "dead-1", Number(seconds) * 1000 - 1000, "dead-2");
    const gate = redisConcurrencyGate(redis, prefix, 2, logger);
    const first = await gate.enter("ws");
    const second = await gate.enter("ws");
    expect([first, second].every(Boolean)).toBe(true);
    expect(await gate.enter("ws")).toBeNull();
    await first!();
    await second!();
    await redis.del(key);
  });
});
