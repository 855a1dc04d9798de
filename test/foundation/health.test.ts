import { spawn, type ChildProcess } from "node:child_process";
import { createServer as createNetServer } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { redisReachable } from "../../src/lib/redis.js";
import { createTestApp, graphqlClient } from "../helpers.js";

/** A free TCP port on loopback. */
async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts a throwaway redis-server of its own, so stopping it touches no other test. */
async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
  for (let i = 0; i < 100; i++) {
    const probe = createTestApp({ REDIS_URL: `redis://127.0.0.1:${port}` });
    const ok = await redisReachable(probe.redis, 200);
    await probe.close();
    if (ok) return child;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("redis-server did not start");
}

describe("/health and /ready", () => {
  const apps: ReturnType<typeof createTestApp>[] = [];
  afterAll(async () => Promise.all(apps.map((a) => a.close())));

  it("/health answers without a key", async () => {
    const app = createTestApp();
    apps.push(app);
    const res = await graphqlClient(app).yoga.fetch("http://localhost/health");
    expect(res.status).toBe(200);
    expect(res.headers.get("x-yoga-id")).toBeTruthy();
  });

  it("/ready reports a stopped Redis with 503", async () => {
    const port = await freePort();
    const redis = await startRedis(port);
    const app = createTestApp({ REDIS_URL: `redis://127.0.0.1:${port}` });
    apps.push(app);
    const yoga = graphqlClient(app).yoga;

    // Ready once the app's connection is up (polled: a busy machine may take more than the 1 s
    // one /ready waits for it).
    let up = await yoga.fetch("http://localhost/ready");
    for (let i = 0; i < 60 && up.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 250));
      up = await yoga.fetch("http://localhost/ready");
    }
    expect(up.status).toBe(200);
    expect(await up.json()).toEqual({ status: "ready", checks: { postgres: "up", redis: "up" } });

    redis.kill("SIGKILL");
    await new Promise((resolve) => redis.once("exit", resolve));
    const down = await yoga.fetch("http://localhost/ready");
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({ status: "unavailable", checks: { postgres: "up", redis: "down" } });
  });

  it("/ready reports an unreachable Postgres", async () => {
    const port = await freePort();
    const app = createTestApp({ DATABASE_URL: `postgresql://postgres@127.0.0.1:${port}/nothing` });
    apps.push(app);
    const res = await graphqlClient(app).yoga.fetch("http://localhost/ready");
    expect(res.status).toBe(503);
    expect(((await res.json()) as { checks: unknown }).checks).toEqual({ postgres: "down", redis: "up" });
  });
});
