/**
 * End-to-end checks against a running container stack, through its public GraphQL API only
 * (driven by scripts/containers/test.sh; any stack works: `OODLE_URL`, `OODLE_KEY`).
 *
 *   tsx scripts/containers/smoke.ts recipe   the cookbook's "All checks pass" recipe, verbatim, as a
 *                                            live evaluator: a span in → its scores read back; then a
 *                                            small experiment over two dataset items
 *   tsx scripts/containers/smoke.ts burst N  N spans ingested twice, concurrently: exactly one run
 *                                            per (span, evaluator), each with its score
 *
 * Every wait is bounded (`SMOKE_WAIT_MS`, default 180000) and fails naming what it waited for.
 */
import { ALL_CHECKS_PASS } from "../../test/fixtures/cookbook-recipes.js";

const url = `${process.env.OODLE_URL ?? "http://127.0.0.1:4000"}/graphql`;
const key = process.env.OODLE_KEY ?? "";
const waitMs = Number(process.env.SMOKE_WAIT_MS ?? 180_000);
const [phase, countArg] = process.argv.slice(2);

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

/** One GraphQL request; `body` is JSON or a multipart FormData. Throws on any GraphQL error. */
async function gql(query: string, variables: Json = {}, body?: FormData): Promise<Json> {
  const response = await fetch(url, {
    method: "POST",
    headers: body ? { authorization: `Bearer ${key}` } : { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body ?? JSON.stringify({ query, variables }),
  });
  const result = (await response.json()) as { data?: Json; errors?: Json[] };
  if (result.errors?.length) throw new Error(`GraphQL error: ${JSON.stringify(result.errors)}`);
  return result.data;
}

/** Polls `probe` every 500 ms until it returns a value, or fails after `waitMs` naming `what`. */
async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${waitMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

function check(condition: boolean, message: string): void {
  if (!condition) throw new Error(`check failed: ${message}`);
  console.log(`[smoke] ok: ${message}`);
}

const scoreMap = (scores: { name: string; value: Json }[]) => Object.fromEntries(scores.map((s) => [s.name, s.value]));

async function createEvaluator(name: string): Promise<string> {
  await gql(`mutation($input: CreateTemplateInput!) { createTemplate(input: $input) { template { id } } }`, {
    input: { name, sourceCode: ALL_CHECKS_PASS },
  });
  const data = await gql(`mutation($input: CreateEvaluatorInput!) { createEvaluator(input: $input) { evaluator { id } } }`, {
    input: { name, templateName: name, attributeEquals: { "smoke.evaluator": name } },
  });
  return data.createEvaluator.evaluator.id;
}

const chatSpan = (traceId: string, spanId: string, reply: string, evaluator: string) => ({
  traceId,
  spanId,
  name: "chat",
  input: [{ role: "user", content: "When does my order ship?" }],
  output: reply,
  attributes: { "smoke.evaluator": evaluator },
});

/** The cookbook recipe live (span → scores) and in a two-item experiment. */
async function recipe(): Promise<void> {
  const name = `All checks pass ${Date.now()}`;
  const evaluatorId = await createEvaluator(name);
  const traceId = `smoke-${Date.now()}`;
  // "guarantee" is on the recipe's forbidden list, so keyword_check fails and so does safe_reply.
  const ingest = await gql(
    `mutation($input: IngestSpansInput!) { ingestSpans(input: $input) { evaluationsQueued rejected { index } } }`,
    { input: { spans: [chatSpan(traceId, "s1", "It ships tomorrow, we guarantee it.", name)] } },
  );
  check(ingest.ingestSpans.evaluationsQueued === 1 && ingest.ingestSpans.rejected.length === 0, "one span ingested, one evaluation queued");
  const span = await until("the live run of the recipe", async () => {
    const data = await gql(`query($t: String!) { trace(traceId: $t) { spans { runs { outcome } scores { name value } } } }`, { t: traceId });
    const found = data.trace?.spans?.[0];
    return found?.runs?.length ? found : undefined;
  });
  const scores = scoreMap(span.scores);
  console.log(`[smoke] live scores: ${JSON.stringify(scores)}`);
  check(span.runs.length === 1 && span.runs[0].outcome === "ok", "the live run ended ok, exactly once");
  check(scores.pii_free === true, "pii_free is true (no PII in the reply)");
  check(scores.keywords_ok === false, 'keywords_ok is false ("guarantee" is forbidden)');
  check(scores.refused === false, "refused is false (the reply answers)");
  check(scores.safe_reply === false, "safe_reply (all_pass) is false");

  // A small experiment: one reply that passes every check, one that does not.
  const items = [
    { id: "pass", input: [{ role: "user", content: "Where is my parcel?" }], output: "Your parcel left our warehouse today." },
    { id: "fail", input: [{ role: "user", content: "Will it arrive?" }], output: "It will arrive on Friday, I promise." },
  ];
  const body = new FormData();
  body.set("operations", JSON.stringify({
    query: `mutation($file: File!) { importDataset(input: {name: "${name}", file: $file}) { imported dataset { id } } }`,
    variables: { file: null },
  }));
  body.set("map", JSON.stringify({ 0: ["variables.file"] }));
  body.set("0", new File([items.map((i) => JSON.stringify(i)).join("\n")], "items.jsonl", { type: "application/x-ndjson" }));
  const imported = await gql("", {}, body);
  check(imported.importDataset.imported === 2, "two dataset items imported");
  const created = await gql(`mutation($input: CreateExperimentInput!) { createExperiment(input: $input) { experiment { id } } }`, {
    input: { datasetId: imported.importDataset.dataset.id, evaluatorIds: [evaluatorId] },
  });
  const experimentId = created.createExperiment.experiment.id;
  const experiment = await until("the experiment to complete", async () => {
    const data = await gql(
      `query($id: ID!) { experiment(id: $id) { status progress { done failed pending } summary { name count passed passRate } } }`,
      { id: experimentId },
    );
    return data.experiment.status === "completed" ? data.experiment : undefined;
  });
  console.log(`[smoke] experiment: ${JSON.stringify(experiment.progress)}`);
  check(experiment.progress.done === 2 && experiment.progress.failed === 0, "the experiment ran both items");
  const safe = experiment.summary.find((s: Json) => s.name === "safe_reply");
  check(safe?.count === 2 && safe.passed === 1 && safe.passRate === 0.5, "safe_reply passes on one item of two (pass rate 0.5)");
}

/** N spans, each ingested twice at the same time: one run per span, never two. */
async function burst(count: number): Promise<void> {
  const name = `Burst ${Date.now()}`;
  const evaluatorId = await createEvaluator(name);
  const traceId = `burst-${Date.now()}`;
  const spans = Array.from({ length: count }, (_, i) =>
    chatSpan(traceId, `b${i}`, i % 2 ? "It ships tomorrow, we guarantee it." : "It ships tomorrow.", name),
  );
  const mutation = `mutation($input: IngestSpansInput!) { ingestSpans(input: $input) { evaluationsQueued rejected { index } } }`;
  const started = Date.now();
  const results = await Promise.all([gql(mutation, { input: { spans } }), gql(mutation, { input: { spans } })]);
  // Both requests may queue a span that the other is storing at the same time; the job id
  // (<span>_<evaluator>) and the run's unique index are what keep it to one run.
  const queued = results.reduce((sum, r) => sum + r.ingestSpans.evaluationsQueued, 0);
  check(queued >= count && results.every((r) => r.ingestSpans.rejected.length === 0), `${count} spans sent twice, none rejected (${queued} queue requests)`);
  const stats = await until(`${count} runs of the burst`, async () => {
    const data = await gql(`query($id: ID!) { node(id: $id) { ... on Evaluator { stats { runs pending } } } }`, { id: evaluatorId });
    const s = data.node.stats;
    return s.runs >= count && s.pending === 0 ? s : undefined;
  });
  console.log(`[smoke] burst of ${count} spans scored in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  check(stats.runs === count, `exactly ${count} runs recorded (got ${stats.runs})`);
  const data = await gql(`query($t: String!) { trace(traceId: $t) { spans { spanId runs { outcome } scores { name value } } } }`, { t: traceId });
  const seen = data.trace.spans as { spanId: string; runs: { outcome: string }[]; scores: { name: string; value: Json }[] }[];
  check(seen.length === count, `${count} spans stored once each (got ${seen.length})`);
  const wrong = seen.filter((s) => {
    const expected = Number(s.spanId.slice(1)) % 2 === 0;
    return s.runs.length !== 1 || s.runs[0]!.outcome !== "ok" || scoreMap(s.scores).safe_reply !== expected;
  });
  check(wrong.length === 0, `every span has one ok run and the expected safe_reply (wrong: ${wrong.map((s) => s.spanId).join(", ") || "none"})`);
}

try {
  if (phase === "recipe") await recipe();
  else if (phase === "burst") await burst(Number(countArg ?? 200));
  else throw new Error("usage: smoke.ts recipe | burst N");
} catch (error) {
  console.error(`[smoke] FAILED: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
