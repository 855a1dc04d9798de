// Deliveries to real HTTP receivers on loopback (Done when of issue 31): the webhook's HMAC-SHA256
// signature checks out with the secret shown at creation, a receiver answering 503 gets retries
// with backoff until it answers 200 (every answer in the delivery log), a captured delivery sent
// again later is refused by the receiver as too old, Slack receives Slack's message shape, and a
// loopback address is refused unless private destinations are allowed.
import { randomBytes, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { Writable } from "node:stream";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type App } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { verifyWebhook } from "../../src/modules/monitors/signature.js";
import { startWorkers, type Workers } from "../../src/worker.js";
import { alignedEnd, manualClock, monitorFixture } from "./helpers.js";

const HOUR = 3_600_000;
const CADENCE = 300;

/** One request a receiver got. */
interface Received {
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/** A receiver on loopback: records every request and answers what `answer` says. */
async function receiver(answer: (r: Received, count: number) => { status: number; body?: string }) {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const r = { path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      received.push(r);
      const { status, body } = answer(r, received.filter((x) => x.path === r.path).length);
      res.writeHead(status, { "content-type": "text/plain" }).end(body ?? "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return { url, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, what: string, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const clock = manualClock(new Date());
const secretsKey = randomBytes(32).toString("base64");
let app: App;
let workers: Workers;
beforeAll(async () => {
  app = createApp(
    loadConfig({ ...process.env, QUEUE_PREFIX: `oodle-test-mon-del-${randomUUID().slice(0, 8)}`, ALERT_ALLOW_PRIVATE_DESTINATIONS: "true", ALERT_RETRY_BASE_MS: "50", ALERT_DELIVERY_ATTEMPTS: "4", ALERT_SECRETS_KEY: secretsKey }),
    { clock },
  );
  workers = await startWorkers(app, { queues: ["monitor-delivery"], reconcileIntervalMs: 0 });
});
afterAll(async () => {
  await workers?.close();
  await app?.close();
});

describe("a signed webhook", () => {
  it("is retried with backoff through two 503s, arrives signed, and a replay of it later is refused by age", async () => {
    const fx0 = await monitorFixture(app, "del-owner");
    // The receiver's clock: the same time as the sender's (the manual clock's), moved on for the replay.
    let receiverNow = 0;
    let secret = "";
    const hook = await receiver((r, count) => {
      if (count <= 2) return { status: 503, body: `busy ${count}` };
      const refused = verifyWebhook({ secret, headers: r.headers as Record<string, string>, rawBody: r.body, nowSeconds: receiverNow });
      return refused ? { status: 400, body: refused } : { status: 200, body: "thanks" };
    });
    try {
      const created = await app.services.monitors.createDestination(fx0.principal, { name: "hook", kind: "webhook", url: `${hook.url}/oodle` });
      secret = created.signingSecret!;
      expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
      // The secret and the URL are sealed at rest.
      const row = await app.prisma.alertDestination.findUniqueOrThrow({ where: { id: created.destination.id } });
      expect(JSON.stringify(row)).not.toContain(secret);
      expect(JSON.stringify(row)).not.toContain(`${hook.url}/oodle`);
      expect(row.urlSealed.startsWith("v1:")).toBe(true);
      const fx = fx0;
      const end = alignedEnd(CADENCE, 12 * 24 + 10);
      await fx.runs({ from: new Date(end.getTime() - HOUR), to: end, n: 100, passes: 80 });
      clock.set(new Date(end.getTime() - 60_000));
      const monitor = await app.services.monitors.createMonitor(fx.principal, { name: "helpful rate", evaluatorId: fx.evaluator.id, scoreName: "helpful", metric: "pass_rate", windowSeconds: 3600, cadenceSeconds: CADENCE, condition: "threshold", alertLevel: 0.85, destinationIds: [created.destination.id] });
      clock.set(new Date(end.getTime() + 3_000));
      receiverNow = clock.now().getTime() / 1000;
      await app.services.monitors.evaluateDue(monitor.id);

      const delivery = await until(() => app.prisma.alertDelivery.findFirstOrThrow({ where: { monitorId: monitor.id } }), (d) => d.status !== "pending", "the delivery");
      expect(delivery).toMatchObject({ status: "delivered", attempts: 3, event: "firing" });
      const log = delivery.log as { attempt: number; statusCode: number; body: string; error: string | null }[];
      expect(log.map((l) => [l.attempt, l.statusCode, l.body])).toEqual([[1, 503, "busy 1"], [2, 503, "busy 2"], [3, 200, "thanks"]]);
      // Every attempt carried the same delivery id, each signed with its own timestamp header.
      const posts = hook.received.filter((r) => r.path === "/oodle");
      expect(posts).toHaveLength(3);
      expect(new Set(posts.map((p) => p.headers["oodle-delivery-id"]))).toEqual(new Set([delivery.id]));
      const last = posts[2]!;
      expect(last.headers["oodle-signature"]).toMatch(/^v1=[0-9a-f]{64}$/);
      expect(Number(last.headers["oodle-timestamp"])).toBe(Math.floor(clock.now().getTime() / 1000));
      expect(JSON.parse(last.body)).toMatchObject({ type: "monitor.firing", state: "ALERT", monitor: { id: monitor.id, name: "helpful rate" }, value: 0.8, n: 100 });
      expect(verifyWebhook({ secret, headers: last.headers as Record<string, string>, rawBody: last.body, nowSeconds: Number(last.headers["oodle-timestamp"]) })).toBeNull();
      // A wrong secret or a changed body does not verify.
      expect(verifyWebhook({ secret: "whsec_other", headers: last.headers as Record<string, string>, rawBody: last.body, nowSeconds: Number(last.headers["oodle-timestamp"]) })).toBe("bad_signature");
      expect(verifyWebhook({ secret, headers: last.headers as Record<string, string>, rawBody: last.body.replace("ALERT", "OK"), nowSeconds: Number(last.headers["oodle-timestamp"]) })).toBe("bad_signature");

      // Someone captured the request and sends it again, byte for byte: fresh, it would pass...
      const replay = () => fetch(`${hook.url}/oodle`, { method: "POST", headers: { "content-type": "application/json", "oodle-timestamp": String(last.headers["oodle-timestamp"]), "oodle-signature": String(last.headers["oodle-signature"]), "oodle-delivery-id": String(last.headers["oodle-delivery-id"]) }, body: last.body });
      receiverNow = Number(last.headers["oodle-timestamp"]) + 10;
      expect((await replay()).status).toBe(200);
      // ...but 6 minutes later the receiver refuses it as too old.
      receiverNow = Number(last.headers["oodle-timestamp"]) + 360;
      const refused = await replay();
      expect(refused.status).toBe(400);
      expect(await refused.text()).toBe("too_old");
    } finally {
      await hook.close();
    }
  });

  it("fails at once on a refusal retrying cannot fix (401), and after the last attempt on 500s", async () => {
    const fx = await monitorFixture(app, "del-fail");
    const hook = await receiver((r) => (r.path === "/refuse" ? { status: 401, body: "who are you" } : { status: 500, body: "down" }));
    try {
      const refuse = (await app.services.monitors.createDestination(fx.principal, { name: "refuse", kind: "webhook", url: `${hook.url}/refuse` })).destination;
      const down = (await app.services.monitors.createDestination(fx.principal, { name: "down", kind: "webhook", url: `${hook.url}/down` })).destination;
      const end = alignedEnd(CADENCE, 12 * 24 + 12);
      await fx.runs({ from: new Date(end.getTime() - HOUR), to: end, n: 100, passes: 80 });
      clock.set(new Date(end.getTime() - 60_000));
      const m = await app.services.monitors.createMonitor(fx.principal, { name: "failing", evaluatorId: fx.evaluator.id, scoreName: "helpful", metric: "pass_rate", windowSeconds: 3600, cadenceSeconds: CADENCE, condition: "threshold", alertLevel: 0.85, destinationIds: [refuse.id, down.id] });
      clock.set(new Date(end.getTime() + 3_000));
      await app.services.monitors.evaluateDue(m.id);
      const deliveries = await until(() => app.prisma.alertDelivery.findMany({ where: { monitorId: m.id } }), (ds) => ds.length === 2 && ds.every((d) => d.status !== "pending"), "both deliveries");
      const byDest = new Map(deliveries.map((d) => [d.destinationId, d]));
      expect(byDest.get(refuse.id)).toMatchObject({ status: "failed", attempts: 1 });
      expect((byDest.get(refuse.id)!.log as { statusCode: number; body: string }[]).map((l) => [l.statusCode, l.body])).toEqual([[401, "who are you"]]);
      expect(byDest.get(down.id)).toMatchObject({ status: "failed", attempts: 4 });
      expect((byDest.get(down.id)!.log as { statusCode: number }[]).map((l) => l.statusCode)).toEqual([500, 500, 500, 500]);
    } finally {
      await hook.close();
    }
  });
});

describe("a Slack incoming webhook", () => {
  it("receives Slack's message shape: text, a header block, the reason, the figures and the failing spans", async () => {
    const slack = await receiver(() => ({ status: 200, body: "ok" }));
    try {
      const fx = await monitorFixture(app, "del-slack");
      const dest = await app.services.monitors.createDestination(fx.principal, { name: "slack", kind: "slack", url: `${slack.url}/services/T000/B000/XXXXsecret` });
      expect(dest.signingSecret).toBeNull();
      expect(dest.destination.urlHint).toBe(`${slack.url}/…cret`);
      const end = alignedEnd(CADENCE, 12 * 24 + 13);
      await fx.runs({ from: new Date(end.getTime() - HOUR), to: end, n: 100, passes: 80 });
      clock.set(new Date(end.getTime() - 60_000));
      const m = await app.services.monitors.createMonitor(fx.principal, { name: "Refunds <helpful>", description: "Page the support lead", evaluatorId: fx.evaluator.id, scoreName: "helpful", metric: "pass_rate", windowSeconds: 3600, cadenceSeconds: CADENCE, condition: "threshold", alertLevel: 0.85, destinationIds: [dest.destination.id] });
      clock.set(new Date(end.getTime() + 3_000));
      await app.services.monitors.evaluateDue(m.id);
      await until(async () => slack.received.length, (n) => n >= 1, "the Slack message");
      const [message] = slack.received;
      expect(message!.path).toBe("/services/T000/B000/XXXXsecret");
      expect(message!.headers["oodle-signature"]).toBeUndefined();
      const body = JSON.parse(message!.body) as { text: string; blocks: { type: string; text?: { type: string; text: string }; fields?: { text: string }[]; elements?: { text: string }[] }[] };
      expect(body.text).toBe("🔴 ALERT: Refunds <helpful>: pass rate of helpful 0.8 is below the alert level 0.85 (n 100)");
      expect(body.blocks.map((b) => b.type)).toEqual(["header", "section", "section", "section", "context"]);
      expect(body.blocks[0]!.text).toEqual({ type: "plain_text", text: "🔴 ALERT: Refunds <helpful>", emoji: true });
      expect(body.blocks[1]!.text).toEqual({ type: "mrkdwn", text: "pass rate of helpful 0.8 is below the alert level 0.85 (n 100)" });
      expect(body.blocks[2]!.fields!.map((f) => f.text)).toContain("*Value:* 0.8 (n 100)");
      const examples = body.blocks[3]!.text!.text.split("\n");
      expect(examples[0]).toBe("*Examples (20):*");
      expect(examples).toHaveLength(21);
      expect(examples[1]).toMatch(/^• trace `[0-9a-f]{8}-\d+` span `s` = false$/);
      expect(body.blocks[4]!.elements![0]!.text).toBe("Page the support lead");
    } finally {
      await slack.close();
    }
  });
});

describe("testFireMonitor", () => {
  it("sends a test event now and answers with each delivery after its first attempt", async () => {
    const hook = await receiver(() => ({ status: 204 }));
    try {
      const fx = await monitorFixture(app, "del-test");
      const dest = await app.services.monitors.createDestination(fx.principal, { name: "hook", kind: "webhook", url: `${hook.url}/t` });
      const m = await app.services.monitors.createMonitor(fx.principal, { name: "quiet", evaluatorId: fx.evaluator.id, metric: "count", windowSeconds: 3600, cadenceSeconds: CADENCE, condition: "threshold", alertLevel: 1 });
      await expect(app.services.monitors.testFireMonitor(fx.principal, { id: m.id })).rejects.toMatchObject({ code: "BAD_USER_INPUT" });
      await app.services.monitors.updateMonitor(fx.principal, { id: m.id, destinationIds: [dest.destination.id] });
      const { deliveries } = await app.services.monitors.testFireMonitor(fx.principal, { id: m.id });
      expect(deliveries).toMatchObject([{ event: "test", status: "delivered", attempts: 1 }]);
      expect(JSON.parse(hook.received[0]!.body)).toMatchObject({ type: "monitor.test", state: "ALERT", value: 0, reason: "test: count 0 is below the alert level 1 (n 0)" });
      // Nothing but the delivery was recorded.
      expect(await app.prisma.monitorEvaluation.count({ where: { monitorId: m.id } })).toBe(0);
    } finally {
      await hook.close();
    }
  });
});

describe("private addresses", () => {
  it("are refused by default, without a request, and the delivery fails at once saying why", async () => {
    const hook = await receiver(() => ({ status: 200 }));
    const strict = createApp(loadConfig({ ...process.env, QUEUE_PREFIX: `oodle-test-mon-ssrf-${randomUUID().slice(0, 8)}` }), { clock });
    try {
      const fx = await monitorFixture(strict, "del-ssrf");
      const dest = await strict.services.monitors.createDestination(fx.principal, { name: "internal", kind: "webhook", url: `${hook.url}/metadata` });
      const named = await strict.services.monitors.createDestination(fx.principal, { name: "by name", kind: "webhook", url: `http://localhost:${new URL(hook.url).port}/x` });
      const m = await strict.services.monitors.createMonitor(fx.principal, { name: "ssrf", evaluatorId: fx.evaluator.id, metric: "count", windowSeconds: 3600, cadenceSeconds: CADENCE, condition: "threshold", alertLevel: 1, destinationIds: [dest.destination.id, named.destination.id] });
      const { deliveries } = await strict.services.monitors.testFireMonitor(fx.principal, { id: m.id });
      expect(deliveries.map((d) => d.status)).toEqual(["failed", "failed"]);
      const errors = deliveries.map((d) => (d.log as { error: string }[])[0]!.error);
      expect(errors).toContain("127.0.0.1 is a private or loopback address (set ALERT_ALLOW_PRIVATE_DESTINATIONS=true to allow)");
      expect(errors.find((e) => e.startsWith("localhost resolves to"))).toMatch(/^localhost resolves to (127\.0\.0\.1|::1), a private or loopback address/);
      expect(hook.received).toHaveLength(0);
    } finally {
      await strict.close();
      await hook.close();
    }
  });
});

describe("secrets", () => {
  it("never reach the logs, even at trace level through a failed delivery", async () => {
    const hook = await receiver(() => ({ status: 500, body: "down" }));
    let logs = "";
    const logger = pino({ level: "trace" }, new Writable({ write: (chunk, _e, done) => ((logs += String(chunk)), done()) }));
    const traced = createApp(loadConfig({ ...process.env, QUEUE_PREFIX: `oodle-test-mon-logs-${randomUUID().slice(0, 8)}`, ALERT_ALLOW_PRIVATE_DESTINATIONS: "true", ALERT_DELIVERY_ATTEMPTS: "2", ALERT_RETRY_BASE_MS: "10", ALERT_SECRETS_KEY: secretsKey }), { clock, logger });
    try {
      const fx = await monitorFixture(traced, "del-logs");
      const url = `${hook.url}/T000/B000/secret-path-part`;
      const { destination, signingSecret } = await traced.services.monitors.createDestination(fx.principal, { name: "hook", kind: "webhook", url });
      const m = await traced.services.monitors.createMonitor(fx.principal, { name: "logs", evaluatorId: fx.evaluator.id, metric: "count", windowSeconds: 3600, cadenceSeconds: CADENCE, condition: "threshold", alertLevel: 1, destinationIds: [destination.id] });
      const { deliveries } = await traced.services.monitors.testFireMonitor(fx.principal, { id: m.id });
      expect(await traced.services.monitors.attemptDelivery(deliveries[0]!.id)).toBe("failed");
      expect(logs).toContain("alert delivery failed");
      expect(logs).not.toContain(signingSecret!);
      expect(logs).not.toContain("secret-path-part");
      const row = await traced.prisma.alertDelivery.findUniqueOrThrow({ where: { id: deliveries[0]!.id } });
      expect(JSON.stringify(row)).not.toContain(signingSecret!);
    } finally {
      await traced.close();
      await hook.close();
    }
  });
});
