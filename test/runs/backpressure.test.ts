// Backpressure (README § Live scoring and try_code): while evaluation lags, spans are stored and their evaluations stay
// queued; the lag shows in the ingest response, Evaluator.stats and the metrics; at the
// workspace's bound ingest refuses the whole batch before storing anything, with LIMIT_EXCEEDED,
// HTTP 429 and a retry-after; once the workers catch up it accepts again.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chatSpan } from "../dependencies/helpers.js";
import { liveHarness, waitFor } from "./helpers.js";

const INGEST = `mutation($spans: [JSON!]!) { ingestSpans(input: { spans: $spans }) { evaluationsQueued backlog { queued oldestAgeSeconds limit } } }`;
const STATS = `query($id: ID!) { evaluator(id: $id) { stats { pending queued oldestQueuedSeconds runs } } }`;

let h: Awaited<ReturnType<typeof liveHarness>>;
beforeAll(async () => {
  h = await liveHarness({ startWorker: false, label: "backpressure", env: { MAX_QUEUED_EVALUATIONS_PER_WORKSPACE: "5" } });
});
afterAll(() => h.close());

describe("backpressure on live evaluation", () => {
  it("stores and queues below the bound, refuses whole at it with a retry-after, accepts again once drained", async () => {
    const ws = await h.workspace("bp");
    const keyword = await h.app.services.templates.createTemplateFromStarter(ws.principal, "keyword-check");
    const evaluator = await h.app.services.evaluators.createEvaluator(ws.principal, { name: "Refusal words", templateId: keyword.template.id, params: { required: ["sorry"], mode: "any" } });
    const batch = (from: number) => Array.from({ length: 3 }, (_, i) => chatSpan(`bp-${from + i}`, "s", "Sorry, no."));
    const first = await ws.gql(INGEST, { spans: batch(0) });
    expect(first.data!.ingestSpans).toMatchObject({ evaluationsQueued: 3, backlog: { queued: 3, limit: 5 } });
    const second = await ws.gql(INGEST, { spans: batch(3) });
    expect(second.data!.ingestSpans.backlog).toMatchObject({ queued: 6, limit: 5 });
    expect(second.data!.ingestSpans.backlog.oldestAgeSeconds).toBeGreaterThanOrEqual(0);
    // At the bound: refused whole, nothing stored.
    const refused = await ws.gql(INGEST, { spans: batch(6) });
    expect(refused.status).toBe(429);
    expect(refused.errors![0]!.extensions).toMatchObject({ code: "LIMIT_EXCEEDED" });
    expect(refused.errors![0]!.extensions!.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refused.errors![0]!.message).toMatch(/^evaluation backlog full: 6 live evaluations of this workspace are queued \(bound 5/);
    expect(await h.app.prisma.span.count({ where: { workspaceId: ws.workspace.id } })).toBe(6);
    // The lag in the evaluator's stats and in the metrics.
    const id = Buffer.from(`Evaluator:${evaluator.id}`).toString("base64");
    expect((await ws.gql(STATS, { id })).data!.evaluator.stats).toMatchObject({ pending: 6, queued: 6, runs: 0 });
    const scrape = (await h.app.metrics.scrape()).body;
    expect(Number(/^oodle_evaluations_queued (\d+)/m.exec(scrape)![1])).toBeGreaterThanOrEqual(6);
    // The workers catch up: each run settles its owed evaluation, and ingest accepts again.
    await h.startWorker();
    await waitFor(() => h.app.prisma.run.count({ where: { evaluatorId: evaluator.id } }), 6);
    expect((await ws.gql(STATS, { id })).data!.evaluator.stats).toMatchObject({ pending: 0, queued: 0, oldestQueuedSeconds: 0, runs: 6 });
    const again = await ws.gql(INGEST, { spans: batch(6) });
    expect(again.data!.ingestSpans).toMatchObject({ evaluationsQueued: 3 });
    expect(await h.app.prisma.span.count({ where: { workspaceId: ws.workspace.id } })).toBe(9);
  }, 120_000);
});
