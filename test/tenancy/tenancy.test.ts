import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.js";
import { schema } from "../../src/graphql-schema.js";
import { createTestApp, createTestWorkspace, graphqlClient } from "../helpers.js";
import { snapshot, tablePlans } from "./snapshot.js";

// Every query, mutation and subscription, called by workspace B with workspace A's ids (and names): NOT_FOUND
// (or an empty connection for a list), nothing of A in the answer, and not one row of A or B
// changed. The fields are read from the schema, so a new field without a case fails below.

/** What workspace A holds: its global ids, raw ids and names. */
interface Fixture {
  workspace: { gid: string };
  apiKey: { gid: string };
  template: { gid: string; name: string; versionGid: string };
  evaluator: { gid: string; name: string };
  library: { name: string; versionGid: string };
  dataset: { gid: string; name: string; itemGid: string };
  experiment: { gid: string };
  span: { gid: string; traceId: string; spanId: string };
  /** A session key with a schedule of A's session evaluator (its trace evaluator has one on span.traceId). */
  session: { key: string };
  run: { gid: string };
  backfill: { gid: string };
  monitor: { gid: string };
  destination: { gid: string; name: string };
  connection: { gid: string; name: string };
  /** A model A set its own price for (a name: prices have no id). */
  modelPrice: { model: string };
  /** B's own records, made before the snapshots, to point at A's from (updateEvaluator, createExperiment). */
  own: { evaluatorGid: string; datasetGid: string };
}

/**
 * One call of a root field and what it must answer:
 * - `NOT_FOUND`: an error with that code and no data;
 * - `{ empty }`: a connection filtered by A's record, with no edges (`empty`: the path to them);
 * - `{ none }`: an unfiltered connection (or plain list) listing none of A's records (B's own may be there);
 * - `{ invalid }`: a check that answers `valid: false` with issues, as for any unknown name;
 * - `{ refused }`: BAD_USER_INPUT (a name of A's inside a draft is bad input, as any unknown one);
 * - `{ own }`: the field takes no record of another workspace at all (it acts on the caller's own
 *   records, under names the caller chooses): then only A's rows must stay unchanged.
 */
interface Case {
  label: string;
  query: string;
  variables?: (fx: Fixture) => Record<string, unknown>;
  expect: "NOT_FOUND" | { empty: string } | { none: string } | { invalid: string } | { refused: string } | { own: string };
}

/** A record as a list shows it: by id, name, or (a model price) model. */
type Listed = { id?: string; name?: string; model?: string };

const gid = (type: string, id: string) => Buffer.from(`${type}:${id}`).toString("base64");
const SOURCE = "from oodle_eval.v1 import metrics\n\n\ndef evaluate(ctx):\n    return EvaluationResult(scores=metrics.keyword_check(ctx, required=[\"refund\"]))\n";
const LIBRARY_SOURCE = "def tenant_a_secret_check(ctx):\n    return []\n";
const ITEMS = '{"id": "a-1", "input": [{"role": "user", "content": "tenant A question"}], "output": "tenant A answer"}\n';
const ITEMS_B = '{"id": "b-1", "input": [{"role": "user", "content": "b question"}], "output": "b answer"}\n';

/** The cases per root field ("Query.x", "Mutation.y"). A new field needs an entry here. */
const CASES: Record<string, Case[]> = {
  "Query.backfill": [{ label: "A's id", query: "query($id: ID!) { backfill(id: $id) { status } }", variables: (fx) => ({ id: fx.backfill.gid }), expect: "NOT_FOUND" }],
  "Query.backfillLimits": [{ label: "the caller's own", query: "{ backfillLimits { active maxConcurrent } }", expect: { own: "counts of the caller's own backfills" } }],
  "Query.backfills": [{ label: "A's evaluator as filter", query: "query($e: ID) { backfills(first: 100, evaluatorId: $e) { edges { node { id } } } }", variables: (fx) => ({ e: fx.evaluator.gid }), expect: { empty: "backfills.edges" } }],
  "Query.estimateBackfill": [{ label: "A's evaluator", query: "query($e: ID!, $w: DateTime!) { estimateBackfill(input: { evaluatorId: $e, windowStart: $w }) { runs } }", variables: (fx) => ({ e: fx.evaluator.gid, w: new Date(Date.now() - 3_600_000).toISOString() }), expect: "NOT_FOUND" }],
  "Mutation.createBackfill": [{ label: "A's evaluator", query: "mutation($e: ID!, $w: DateTime!) { createBackfill(input: { evaluatorId: $e, windowStart: $w }) { backfill { id } } }", variables: (fx) => ({ e: fx.evaluator.gid, w: new Date(Date.now() - 3_600_000).toISOString() }), expect: "NOT_FOUND" }],
  "Mutation.cancelBackfill": [{ label: "A's backfill", query: "mutation($id: ID!) { cancelBackfill(input: { id: $id }) { backfill { status } } }", variables: (fx) => ({ id: fx.backfill.gid }), expect: "NOT_FOUND" }],
  "Query.monitor": [{ label: "A's id", query: "query($id: ID!) { monitor(id: $id) { name } }", variables: (fx) => ({ id: fx.monitor.gid }), expect: "NOT_FOUND" }],
  "Query.monitors": [{ label: "A's evaluator as filter", query: "query($e: ID) { monitors(first: 100, evaluatorId: $e) { edges { node { id } } } }", variables: (fx) => ({ e: fx.evaluator.gid }), expect: { empty: "monitors.edges" } }],
  "Query.alertDestinations": [{ label: "lists none of A's", query: "{ alertDestinations(first: 100) { edges { node { id } } } }", expect: { none: "alertDestinations.edges" } }],
  "Query.alertDeliveries": [{ label: "A's monitor as filter", query: "query($m: ID) { alertDeliveries(first: 100, monitorId: $m) { edges { node { id } } } }", variables: (fx) => ({ m: fx.monitor.gid }), expect: { empty: "alertDeliveries.edges" } }],
  "Mutation.createMonitor": [
    { label: "A's evaluator", query: "mutation($e: ID!) { createMonitor(input: { name: \"b mon\", evaluatorId: $e, metric: count, windowSeconds: 3600, cadenceSeconds: 300, condition: threshold, alertLevel: 1 }) { monitor { id } } }", variables: (fx) => ({ e: fx.evaluator.gid }), expect: "NOT_FOUND" },
    { label: "B's evaluator, A's destination", query: "mutation($e: ID!, $d: [ID!]) { createMonitor(input: { name: \"b mon 2\", evaluatorId: $e, metric: count, windowSeconds: 3600, cadenceSeconds: 300, condition: threshold, alertLevel: 1, destinationIds: $d }) { monitor { id } } }", variables: (fx) => ({ e: fx.own.evaluatorGid, d: [fx.destination.gid] }), expect: "NOT_FOUND" },
  ],
  "Mutation.updateMonitor": [{ label: "A's monitor", query: "mutation($id: ID!) { updateMonitor(input: { id: $id, enabled: false }) { monitor { id } } }", variables: (fx) => ({ id: fx.monitor.gid }), expect: "NOT_FOUND" }],
  "Mutation.deleteMonitor": [{ label: "A's monitor", query: "mutation($id: ID!) { deleteMonitor(input: { id: $id }) { deletedMonitorId } }", variables: (fx) => ({ id: fx.monitor.gid }), expect: "NOT_FOUND" }],
  "Mutation.muteMonitor": [{ label: "A's monitor", query: "mutation($id: ID!) { muteMonitor(input: { id: $id }) { monitor { muted } } }", variables: (fx) => ({ id: fx.monitor.gid }), expect: "NOT_FOUND" }],
  "Mutation.unmuteMonitor": [{ label: "A's monitor", query: "mutation($id: ID!) { unmuteMonitor(input: { id: $id }) { monitor { muted } } }", variables: (fx) => ({ id: fx.monitor.gid }), expect: "NOT_FOUND" }],
  "Mutation.resolveMonitor": [{ label: "A's monitor", query: "mutation($id: ID!) { resolveMonitor(input: { id: $id }) { monitor { state } } }", variables: (fx) => ({ id: fx.monitor.gid }), expect: "NOT_FOUND" }],
  "Mutation.testFireMonitor": [{ label: "A's monitor", query: "mutation($id: ID!) { testFireMonitor(input: { id: $id }) { deliveries { id } } }", variables: (fx) => ({ id: fx.monitor.gid }), expect: "NOT_FOUND" }],
  "Mutation.createAlertDestination": [{ label: "A's name", query: "mutation($n: String!) { createAlertDestination(input: { name: $n, kind: slack, url: \"https://hooks.slack.com/services/B/own\" }) { destination { id } } }", variables: (fx) => ({ n: fx.destination.name }), expect: { own: "a destination of the caller's; names are per workspace" } }],
  "Query.connections": [{ label: "B's list", query: "{ connections(first: 100) { edges { node { id name } } } }", expect: { none: "connections.edges" } }],
  "Mutation.createConnection": [{ label: "A's name", query: 'mutation($n: String!) { createConnection(input: { name: $n, provider: openai, defaultModel: "m", apiKey: "sk-b-own-0000000000000000" }) { connection { id } } }', variables: (fx) => ({ n: fx.connection.name }), expect: { own: "a connection of the caller's; names are per workspace" } }],
  "Mutation.updateConnection": [{ label: "A's connection", query: 'mutation($id: ID!) { updateConnection(input: { id: $id, defaultModel: "b-model" }) { connection { id } } }', variables: (fx) => ({ id: fx.connection.gid }), expect: "NOT_FOUND" }],
  "Mutation.deleteConnection": [{ label: "A's connection", query: "mutation($id: ID!) { deleteConnection(input: { id: $id }) { deletedConnectionId } }", variables: (fx) => ({ id: fx.connection.gid }), expect: "NOT_FOUND" }],
  "Mutation.testConnection": [{ label: "A's connection", query: "mutation($id: ID!) { testConnection(input: { id: $id }) { ok } }", variables: (fx) => ({ id: fx.connection.gid }), expect: "NOT_FOUND" }],
  "Query.modelPrices": [{ label: "B's table", query: "{ modelPrices { model inputUsdPerMillion source } }", expect: { none: "modelPrices" } }],
  // deleteModelPrice before setModelPrice: the cases run in order, and B's own setModelPrice of the name makes a row of B's that B may delete.
  "Mutation.deleteModelPrice": [{ label: "A's model", query: "mutation($m: String!) { deleteModelPrice(input: { model: $m }) { deleted { model } } }", variables: (fx) => ({ m: fx.modelPrice.model }), expect: "NOT_FOUND" }],
  "Mutation.setModelPrice": [{ label: "A's model", query: "mutation($m: String!) { setModelPrice(input: { model: $m, inputUsdPerMillion: 1, outputUsdPerMillion: 2 }) { price { model source } } }", variables: (fx) => ({ m: fx.modelPrice.model }), expect: { own: "a price of the caller's; model prices are per workspace" } }],
  "Mutation.deleteAlertDestination": [{ label: "A's destination", query: "mutation($id: ID!) { deleteAlertDestination(input: { id: $id }) { deletedAlertDestinationId } }", variables: (fx) => ({ id: fx.destination.gid }), expect: "NOT_FOUND" }],
  "Query.compareExperiments": [{ label: "A's experiments", query: "query($a: ID!) { compareExperiments(baseId: $a, candidateId: $a) { changeCount } }", variables: (fx) => ({ a: fx.experiment.gid }), expect: "NOT_FOUND" }],
  "Query.dataset": [
    { label: "A's id", query: "query($id: ID) { dataset(id: $id) { name } }", variables: (fx) => ({ id: fx.dataset.gid }), expect: "NOT_FOUND" },
    { label: "A's name", query: "query($n: String) { dataset(name: $n) { id } }", variables: (fx) => ({ n: fx.dataset.name }), expect: "NOT_FOUND" },
  ],
  "Query.datasets": [{ label: "lists none of A's", query: "{ datasets(first: 100) { edges { node { id } } } }", expect: { none: "datasets.edges" } }],
  "Query.evaluator": [
    { label: "A's id", query: "query($id: ID) { evaluator(id: $id) { name } }", variables: (fx) => ({ id: fx.evaluator.gid }), expect: "NOT_FOUND" },
    { label: "A's name", query: "query($n: String) { evaluator(name: $n) { id } }", variables: (fx) => ({ n: fx.evaluator.name }), expect: "NOT_FOUND" },
  ],
  "Query.evaluators": [{ label: "A's template as filter", query: "query($t: ID) { evaluators(first: 100, templateId: $t, includeArchived: true) { edges { node { id } } } }", variables: (fx) => ({ t: fx.template.gid }), expect: { empty: "evaluators.edges" } }],
  "Query.experiment": [{ label: "A's id", query: "query($id: ID!) { experiment(id: $id) { status } }", variables: (fx) => ({ id: fx.experiment.gid }), expect: "NOT_FOUND" }],
  "Query.experiments": [{ label: "A's dataset as filter", query: "query($d: ID) { experiments(first: 100, datasetId: $d) { edges { node { id } } } }", variables: (fx) => ({ d: fx.dataset.gid }), expect: { empty: "experiments.edges" } }],
  "Query.explainMatch": [{ label: "A's evaluator and span", query: "query($e: ID!, $s: ID!) { explainMatch(evaluatorId: $e, spanId: $s) { matched } }", variables: (fx) => ({ e: fx.evaluator.gid, s: fx.span.gid }), expect: "NOT_FOUND" }],
  "Query.node": ["workspace", "apiKey", "template", "evaluator", "dataset", "experiment", "span", "run", "backfill", "monitor", "destination", "connection"].map((key) => ({
    label: `A's ${key}`,
    query: "query($id: ID!) { node(id: $id) { id } }",
    variables: (fx: Fixture) => ({ id: (fx[key as keyof Fixture] as { gid: string }).gid }),
    expect: "NOT_FOUND" as const,
  })).concat([
    { label: "A's template version", query: "query($id: ID!) { node(id: $id) { id } }", variables: (fx) => ({ id: fx.template.versionGid }), expect: "NOT_FOUND" },
    { label: "A's library version", query: "query($id: ID!) { node(id: $id) { id } }", variables: (fx) => ({ id: fx.library.versionGid }), expect: "NOT_FOUND" },
    { label: "A's dataset item", query: "query($id: ID!) { node(id: $id) { id } }", variables: (fx) => ({ id: fx.dataset.itemGid }), expect: "NOT_FOUND" },
  ]),
  "Query.nodes": [{ label: "every kind of A's ids", query: "query($ids: [ID!]!) { nodes(ids: $ids) { id } }", variables: (fx) => ({ ids: [fx.workspace.gid, fx.apiKey.gid, fx.template.gid, fx.template.versionGid, fx.evaluator.gid, fx.library.versionGid, fx.dataset.gid, fx.dataset.itemGid, fx.experiment.gid, fx.span.gid, fx.run.gid, fx.backfill.gid, fx.monitor.gid, fx.destination.gid, fx.connection.gid] }), expect: "NOT_FOUND" }],
  "Query.runs": [{ label: "A's evaluator as filter", query: "query($e: ID) { runs(first: 100, evaluatorId: $e) { edges { node { id } } } }", variables: (fx) => ({ e: fx.evaluator.gid }), expect: { empty: "runs.edges" } }],
  "Query.sandboxCapabilities": [{ label: "no records", query: "{ sandboxCapabilities { pythonVersion } }", expect: { own: "the sandbox's own facts, no workspace's records" } }],
  "Query.workspaceLimits": [{ label: "the caller's own", query: "{ workspaceLimits { retention { days source } maxQueuedEvaluations } }", expect: { own: "the caller's workspace retention and the deployment's bounds" } }],
  "Query.sharedLibraries": [{ label: "lists none of A's", query: "{ sharedLibraries(first: 100) { edges { node { name } } } }", expect: { none: "sharedLibraries.edges" } }],
  "Query.sharedLibrary": [{ label: "A's name", query: "query($n: String!) { sharedLibrary(name: $n) { id } }", variables: (fx) => ({ n: fx.library.name }), expect: "NOT_FOUND" }],
  "Query.span": [{ label: "A's id", query: "query($id: ID!) { span(id: $id) { spanId } }", variables: (fx) => ({ id: fx.span.gid }), expect: "NOT_FOUND" }],
  "Query.spans": [{ label: "A's trace and evaluator as filter", query: "query($t: String, $e: ID) { spans(first: 100, filter: { traceId: $t, evaluatorId: $e }) { edges { node { id } } } }", variables: (fx) => ({ t: fx.span.traceId, e: fx.evaluator.gid }), expect: { empty: "spans.edges" } }],
  "Query.starter": [{ label: "built-in", query: '{ starter(id: "keyword-check") { id } }', expect: { own: "built-in templates, no workspace's records" } }],
  "Query.starters": [{ label: "built-in", query: "{ starters(first: 5) { edges { node { id } } } }", expect: { own: "built-in templates, no workspace's records" } }],
  "Query.template": [
    { label: "A's id", query: "query($id: ID) { template(id: $id) { name } }", variables: (fx) => ({ id: fx.template.gid }), expect: "NOT_FOUND" },
    { label: "A's name", query: "query($n: String) { template(name: $n) { id } }", variables: (fx) => ({ n: fx.template.name }), expect: "NOT_FOUND" },
  ],
  "Query.templateVersion": [
    { label: "A's template id", query: "query($id: ID) { templateVersion(templateId: $id) { sourceCode } }", variables: (fx) => ({ id: fx.template.gid }), expect: "NOT_FOUND" },
    { label: "A's template name", query: "query($n: String) { templateVersion(templateName: $n, version: 1) { sourceCode } }", variables: (fx) => ({ n: fx.template.name }), expect: "NOT_FOUND" },
  ],
  "Query.templates": [{ label: "lists none of A's", query: "{ templates(first: 100) { edges { node { id } } } }", expect: { none: "templates.edges" } }],
  "Query.traceEvaluations": [{ label: "A's trace id (A's trace evaluator has a schedule for it)", query: "query($t: String!) { traceEvaluations(traceId: $t) { state detail } }", variables: (fx) => ({ t: fx.span.traceId }), expect: { empty: "traceEvaluations" } }],
  "Query.sessionEvaluations": [{ label: "A's session key (A's session evaluator has a schedule for it)", query: "query($k: String!) { sessionEvaluations(sessionId: $k) { state detail } }", variables: (fx) => ({ k: fx.session.key }), expect: { empty: "sessionEvaluations" } }],
  "Query.trace": [{ label: "A's trace id", query: "query($t: String!) { trace(traceId: $t) { spans { id } } }", variables: (fx) => ({ t: fx.span.traceId }), expect: "NOT_FOUND" }],
  "Query.validateTemplate": [{
    label: "pins A's library",
    query: "query($s: String!, $p: JSON) { validateTemplate(sourceCode: $s, libraryPins: $p) { valid issues { path message } } }",
    variables: (fx) => ({ s: `from shared.${fx.library.name} import tenant_a_secret_check\n\n\ndef evaluate(ctx):\n    return EvaluationResult(scores=[])\n`, p: { [fx.library.name]: 1 } }),
    expect: { invalid: "the import and the pin are issues: no such library in this workspace" },
  }],
  "Query.viewer": [{ label: "the caller only", query: "{ viewer { workspace { id name } } }", expect: { own: "the caller's own workspace" } }],

  "Subscription.backfillProgress": [{ label: "A's backfill", query: "subscription($id: ID!) { backfillProgress(id: $id) { status } }", variables: (fx) => ({ id: fx.backfill.gid }), expect: "NOT_FOUND" }],
  "Subscription.experimentProgress": [{ label: "A's experiment", query: "subscription($id: ID!) { experimentProgress(id: $id) { status } }", variables: (fx) => ({ id: fx.experiment.gid }), expect: "NOT_FOUND" }],

  "Mutation.cancelExperiment": [{ label: "A's experiment", query: "mutation($id: ID!) { cancelExperiment(input: { id: $id }) { experiment { status } } }", variables: (fx) => ({ id: fx.experiment.gid }), expect: "NOT_FOUND" }],
  "Mutation.setWorkspaceRetention": [{ label: "own workspace", query: "mutation { setWorkspaceRetention(input: { retentionDays: 30 }) { limits { retention { days } } } }", expect: { own: "the caller's own workspace; takes no id" } }],
  "Mutation.createApiKey": [{ label: "own key", query: 'mutation { createApiKey(input: { name: "b key" }) { apiKey { id } } }', expect: { own: "a key of the caller's workspace; takes no id" } }],
  "Mutation.createDataset": [{ label: "A's name", query: "mutation($n: String!) { createDataset(input: { name: $n }) { dataset { id } } }", variables: (fx) => ({ n: fx.dataset.name }), expect: { own: "a dataset of the caller's, names are per workspace" } }],
  "Mutation.createEvaluator": [
    { label: "A's template id", query: "mutation($t: ID) { createEvaluator(input: { name: \"b eval\", templateId: $t }) { evaluator { id } } }", variables: (fx) => ({ t: fx.template.gid }), expect: "NOT_FOUND" },
    { label: "A's template name", query: "mutation($n: String) { createEvaluator(input: { name: \"b eval 2\", templateName: $n }) { evaluator { id } } }", variables: (fx) => ({ n: fx.template.name }), expect: "NOT_FOUND" },
  ],
  "Mutation.createExperiment": [
    { label: "A's dataset", query: "mutation($d: ID!, $e: [ID!]) { createExperiment(input: { datasetId: $d, evaluatorIds: $e }) { experiment { id } } }", variables: (fx) => ({ d: fx.dataset.gid, e: [fx.own.evaluatorGid] }), expect: "NOT_FOUND" },
    { label: "A's evaluator", query: "mutation($d: ID!, $e: [ID!]) { createExperiment(input: { datasetId: $d, evaluatorIds: $e }) { experiment { id } } }", variables: (fx) => ({ d: fx.own.datasetGid, e: [fx.evaluator.gid] }), expect: "NOT_FOUND" },
    { label: "A's template", query: "mutation($d: ID!, $t: [ID!]) { createExperiment(input: { datasetId: $d, templateIds: $t }) { experiment { id } } }", variables: (fx) => ({ d: fx.own.datasetGid, t: [fx.template.gid] }), expect: "NOT_FOUND" },
  ],
  "Mutation.createTemplate": [{
    label: "pins A's library",
    query: "mutation($s: String!, $p: JSON) { createTemplate(input: { name: \"b template\", sourceCode: $s, libraryPins: $p }) { template { id } } }",
    variables: (fx) => ({ s: `from shared.${fx.library.name} import tenant_a_secret_check\n\n\ndef evaluate(ctx):\n    return EvaluationResult(scores=[])\n`, p: { [fx.library.name]: 1 } }),
    expect: { refused: "the import and the pin name no library of this workspace" },
  }],
  "Mutation.createTemplateFromStarter": [{ label: "A's template name", query: 'mutation($n: String) { createTemplateFromStarter(input: { starterId: "keyword-check", name: $n }) { template { id } } }', variables: (fx) => ({ n: fx.template.name }), expect: { own: "a template of the caller's from a built-in starter; names are per workspace" } }],
  "Mutation.deleteDataset": [{ label: "A's dataset", query: "mutation($id: ID!) { deleteDataset(input: { id: $id }) { deletedId } }", variables: (fx) => ({ id: fx.dataset.gid }), expect: "NOT_FOUND" }],
  "Mutation.deleteEvaluator": [{ label: "A's evaluator", query: "mutation($id: ID!) { deleteEvaluator(input: { id: $id }) { evaluator { id } } }", variables: (fx) => ({ id: fx.evaluator.gid }), expect: "NOT_FOUND" }],
  "Mutation.unblockEvaluator": [
    { label: "A's blocked evaluator by id", query: "mutation($id: ID) { unblockEvaluator(input: { id: $id }) { evaluator { id blockedReason } } }", variables: (fx) => ({ id: fx.evaluator.gid }), expect: "NOT_FOUND" },
    { label: "A's blocked evaluator by name", query: "mutation($n: String) { unblockEvaluator(input: { name: $n }) { evaluator { id blockedReason } } }", variables: (fx) => ({ n: fx.evaluator.name }), expect: "NOT_FOUND" },
  ],
  "Mutation.deleteSharedLibrary": [{ label: "A's library name", query: "mutation($n: String!) { deleteSharedLibrary(input: { name: $n }) { deletedId } }", variables: (fx) => ({ n: fx.library.name }), expect: "NOT_FOUND" }],
  "Mutation.deleteTemplate": [{ label: "A's template", query: "mutation($id: ID!) { deleteTemplate(input: { id: $id }) { template { id } } }", variables: (fx) => ({ id: fx.template.gid }), expect: "NOT_FOUND" }],
  "Mutation.deprecateSharedLibrary": [{ label: "A's library name", query: "mutation($n: String!) { deprecateSharedLibrary(input: { name: $n, deprecated: true }) { library { id } } }", variables: (fx) => ({ n: fx.library.name }), expect: "NOT_FOUND" }],
  "Mutation.importDataset": [{ label: "own upload", query: "(multipart)", expect: { own: "a dataset of the caller's from an uploaded file; takes no id" } }],
  "Mutation.ingestSpans": [{ label: "A's trace and span ids", query: "mutation($s: [JSON!]!) { ingestSpans(input: { spans: $s }) { spans { spanId } } }", variables: (fx) => ({ s: [{ traceId: fx.span.traceId, spanId: fx.span.spanId, name: "chat", output: "b" }] }), expect: { own: "spans of the caller's; trace and span ids are per workspace" } }],
  "Mutation.publishSharedLibraryVersion": [{ label: "A's library name", query: 'mutation($n: String!) { publishSharedLibraryVersion(input: { name: $n, sourceCode: "X = 1\\n" }) { version { version } } }', variables: (fx) => ({ n: fx.library.name }), expect: { own: "a library of the caller's; names are per workspace" } }],
  "Mutation.retryExperiment": [{ label: "A's experiment", query: "mutation($id: ID!) { retryExperiment(input: { id: $id }) { experiment { id } } }", variables: (fx) => ({ id: fx.experiment.gid }), expect: "NOT_FOUND" }],
  "Mutation.revokeApiKey": [{ label: "A's key", query: "mutation($id: ID!) { revokeApiKey(input: { id: $id }) { apiKey { id } } }", variables: (fx) => ({ id: fx.apiKey.gid }), expect: "NOT_FOUND" }],
  "Mutation.submitScores": [
    { label: "A's span", query: 'mutation($s: ID, $e: String!) { submitScores(input: { spanId: $s, evaluator: $e, scores: [{ name: "x", value: 1 }] }) { replaced } }', variables: (fx) => ({ s: fx.span.gid, e: fx.evaluator.name }), expect: "NOT_FOUND" },
    { label: "A's experiment item", query: 'mutation($x: ID, $i: ID, $e: String!) { submitScores(input: { experimentId: $x, datasetItemId: $i, evaluator: $e, scores: [{ name: "x", value: 1 }] }) { replaced } }', variables: (fx) => ({ x: fx.experiment.gid, i: fx.dataset.itemGid, e: fx.evaluator.name }), expect: "NOT_FOUND" },
  ],
  "Mutation.tryCode": [
    { label: "A's span", query: "mutation($s: ID) { tryCode(input: { starterId: \"exact-match\", spanId: $s }) { outcome } }", variables: (fx) => ({ s: fx.span.gid }), expect: "NOT_FOUND" },
    { label: "A's template", query: "mutation($t: ID) { tryCode(input: { templateId: $t, document: { output: \"x\" } }) { outcome } }", variables: (fx) => ({ t: fx.template.gid }), expect: "NOT_FOUND" },
    { label: "A's dataset item", query: "mutation($i: ID) { tryCode(input: { starterId: \"exact-match\", datasetItemId: $i }) { outcome } }", variables: (fx) => ({ i: fx.dataset.itemGid }), expect: "NOT_FOUND" },
  ],
  "Mutation.updateEvaluator": [
    { label: "A's evaluator", query: "mutation($id: ID!) { updateEvaluator(input: { id: $id, enabled: false }) { evaluator { id } } }", variables: (fx) => ({ id: fx.evaluator.gid }), expect: "NOT_FOUND" },
    { label: "B's evaluator onto A's template", query: "mutation($id: ID!, $t: ID) { updateEvaluator(input: { id: $id, templateId: $t }) { evaluator { id } } }", variables: (fx) => ({ id: fx.own.evaluatorGid, t: fx.template.gid }), expect: "NOT_FOUND" },
  ],
  "Mutation.updateTemplate": [{ label: "A's template", query: "mutation($id: ID!) { updateTemplate(input: { id: $id, description: \"b was here\" }) { template { id } } }", variables: (fx) => ({ id: fx.template.gid }), expect: "NOT_FOUND" }],
};

/** The root fields of the schema that a tenancy case must cover. */
function rootFields(): string[] {
  const roots = { Query: schema.getQueryType(), Mutation: schema.getMutationType(), Subscription: schema.getSubscriptionType() };
  return Object.entries(roots).flatMap(([root, type]) => Object.keys(type?.getFields() ?? {}).map((f) => `${root}.${f}`));
}

describe("tenancy: every query, mutation and subscription with another workspace's ids", () => {
  let app: App;
  let client: ReturnType<typeof graphqlClient>;
  let a: Awaited<ReturnType<typeof createTestWorkspace>>;
  let b: Awaited<ReturnType<typeof createTestWorkspace>>;
  let fx: Fixture;
  let plans: Awaited<ReturnType<typeof tablePlans>>;

  beforeAll(async () => {
    // No rate limits here: B sends many mutations on purpose.
    app = createTestApp({ RATE_LIMIT_MUTATIONS_PER_MINUTE: "0", RATE_LIMIT_INGEST_PER_MINUTE: "0", RATE_LIMIT_TRY_CODE_PER_MINUTE: "0", RATE_LIMIT_READS_PER_MINUTE: "0" });
    client = graphqlClient(app);
    a = await createTestWorkspace(app, "tenancy-a");
    b = await createTestWorkspace(app, "tenancy-b");
    const asA = async (query: string, variables: Record<string, unknown> = {}) => {
      const res = await client.request(query, variables, a.secret);
      if (res.errors) throw new Error(`fixture: ${JSON.stringify(res.errors)}`);
      return res.data!;
    };
    const suffix = a.workspace.name.slice(-8);
    const library = `tenant_a_lib_${suffix.replace(/-/g, "_")}`;
    const lib = await asA("mutation($n: String!, $s: String!) { publishSharedLibraryVersion(input: { name: $n, sourceCode: $s }) { version { id } } }", { n: library, s: LIBRARY_SOURCE });
    const template = (await asA("mutation($s: String!) { createTemplate(input: { name: \"tenant A template\", sourceCode: $s }) { template { id latestVersion { id } } } }", { s: SOURCE })).createTemplate.template;
    const evaluator = (await asA("mutation($t: ID) { createEvaluator(input: { name: \"tenant A evaluator\", templateId: $t }) { evaluator { id } } }", { t: template.id })).createEvaluator.evaluator;
    const principalA = { workspaceId: a.workspace.id, apiKeyId: a.apiKey.id };
    const report = await app.services.datasets.importItems(principalA, { name: "tenant A dataset" }, Readable.from([ITEMS]));
    const item = await app.prisma.datasetItem.findFirstOrThrow({ where: { datasetId: report.datasetId } });
    const experiment = (await asA("mutation($d: ID!, $e: [ID!]) { createExperiment(input: { datasetId: $d, evaluatorIds: $e }) { experiment { id } } }", { d: gid("Dataset", report.datasetId), e: [evaluator.id] })).createExperiment.experiment;
    const traceId = `tenant-a-trace-${suffix}`;
    const spans = (await asA("mutation($s: [JSON!]!) { ingestSpans(input: { spans: $s }) { spans { spanId } } }", { s: [{ traceId, spanId: "a-span-1", name: "chat", output: "tenant A reply" }] })).ingestSpans.spans;
    expect(spans).toHaveLength(1);
    const span = await app.prisma.span.findFirstOrThrow({ where: { workspaceId: a.workspace.id, traceId } });
    const rawEvaluatorId = Buffer.from(evaluator.id, "base64").toString().split(":")[1]!;
    // Blocked, so that an unblockEvaluator reaching it would change its row (the snapshots would show it).
    expect(await app.services.evaluators.blockEvaluator(rawEvaluatorId, "tenant A's provider refused the key")).toBe(true);
    // A run of A's, written straight (no worker runs in this test).
    const run = await app.prisma.run.upsert({
      where: { spanId_evaluatorId: { spanId: span.id, evaluatorId: rawEvaluatorId } },
      create: { workspaceId: a.workspace.id, evaluatorId: rawEvaluatorId, spanId: span.id, outcome: "ok" },
      update: {},
    });
    // A's trace and session evaluators, each with a schedule (written straight: no ingest side runs here;
    // dated 2099, so that no group poller of another test finds it due).
    const sessionKey = `tenant-a-session-${suffix}`;
    for (const [target, groupKey] of [["trace", traceId], ["session", sessionKey]] as const) {
      const created = (await asA("mutation($t: ID, $n: String!, $g: EvaluationTarget) { createEvaluator(input: { name: $n, templateId: $t, target: $g }) { evaluator { id } } }", { t: template.id, n: `tenant A ${target} evaluator`, g: target })).createEvaluator.evaluator;
      const evaluatorId = Buffer.from(created.id, "base64").toString().split(":")[1]!;
      await app.prisma.groupSchedule.create({ data: { workspaceId: a.workspace.id, evaluatorId, targetType: target, groupKey, traceIds: [traceId], firstSpanAt: new Date("2099-01-01T00:00:00Z"), lastSpanAt: new Date("2099-01-01T00:00:00Z"), spanCount: 1, quietPeriodMs: target === "trace" ? 30_000 : 900_000, maxWaitMs: target === "trace" ? 600_000 : 14_400_000, dueAt: new Date("2099-01-01T00:00:30Z") } });
    }
    const backfill = (await asA("mutation($e: ID!, $w: DateTime!) { createBackfill(input: { evaluatorId: $e, windowStart: $w }) { backfill { id } } }", { e: evaluator.id, w: new Date(Date.now() - 3_600_000).toISOString() })).createBackfill.backfill;
    const destination = (await asA('mutation { createAlertDestination(input: { name: "tenant A hook", kind: webhook, url: "https://alerts.example.com/a" }) { destination { id } } }')).createAlertDestination.destination;
    const monitor = (await asA("mutation($e: ID!, $d: [ID!]) { createMonitor(input: { name: \"tenant A monitor\", evaluatorId: $e, metric: count, windowSeconds: 3600, cadenceSeconds: 300, condition: threshold, alertLevel: 1, destinationIds: $d }) { monitor { id } } }", { e: evaluator.id, d: [destination.id] })).createMonitor.monitor;
    // A's provider connection (never called: B's testConnection on it must stop at NOT_FOUND).
    const connection = (await asA('mutation { createConnection(input: { name: "tenant A judge", provider: openai, baseUrl: "https://llm.example.com/v1", defaultModel: "gpt-a", apiKey: "sk-tenant-a-000000000000000000" }) { connection { id } } }')).createConnection.connection;
    // A's own price of a model (B's setModelPrice and deleteModelPrice name it).
    await asA('mutation { setModelPrice(input: { model: "tenant-a-model", inputUsdPerMillion: 7.77, outputUsdPerMillion: 8.88 }) { price { model } } }');
    // B's own records, made before any snapshot.
    const asB = async (query: string, variables: Record<string, unknown> = {}) => {
      const res = await client.request(query, variables, b.secret);
      if (res.errors) throw new Error(`fixture: ${JSON.stringify(res.errors)}`);
      return res.data!;
    };
    const ownTemplate = (await asB("mutation($s: String!) { createTemplate(input: { name: \"b own template\", sourceCode: $s }) { template { id } } }", { s: SOURCE })).createTemplate.template;
    const ownEvaluator = (await asB("mutation($t: ID) { createEvaluator(input: { name: \"b own evaluator\", templateId: $t }) { evaluator { id } } }", { t: ownTemplate.id })).createEvaluator.evaluator;
    const ownDataset = await app.services.datasets.importItems({ workspaceId: b.workspace.id, apiKeyId: b.apiKey.id }, { name: "b own dataset" }, Readable.from([ITEMS_B]));
    fx = {
      workspace: { gid: gid("Workspace", a.workspace.id) },
      apiKey: { gid: gid("ApiKey", a.apiKey.id) },
      template: { gid: template.id, name: "tenant A template", versionGid: template.latestVersion.id },
      evaluator: { gid: evaluator.id, name: "tenant A evaluator" },
      library: { name: library, versionGid: lib.publishSharedLibraryVersion.version.id },
      dataset: { gid: gid("Dataset", report.datasetId), name: "tenant A dataset", itemGid: gid("DatasetItem", item.id) },
      experiment: { gid: experiment.id },
      span: { gid: gid("Span", span.id), traceId, spanId: "a-span-1" },
      session: { key: sessionKey },
      run: { gid: gid("Run", run.id) },
      backfill: { gid: backfill.id },
      monitor: { gid: monitor.id },
      destination: { gid: destination.id, name: "tenant A hook" },
      connection: { gid: connection.id, name: "tenant A judge" },
      modelPrice: { model: "tenant-a-model" },
      own: { evaluatorGid: ownEvaluator.id, datasetGid: gid("Dataset", ownDataset.datasetId) },
    };
    plans = await tablePlans(app);
  }, 120_000);
  afterAll(() => app.close());

  it("has a case for every Query, Mutation and Subscription field of the schema", () => {
    const missing = rootFields().filter((field) => !CASES[field]?.length);
    // A new field fails here by name: add its cases to CASES in test/tenancy/tenancy.test.ts.
    expect(missing, `root fields without a tenancy case: ${missing.join(", ")}`).toEqual([]);
    const stale = Object.keys(CASES).filter((field) => !rootFields().includes(field));
    expect(stale, `cases for fields the schema no longer has: ${stale.join(", ")}`).toEqual([]);
  });

  /** B's request: GraphQL JSON, a subscription over SSE (its first event), or the multipart upload of importDataset. */
  async function callAsB(c: Case): Promise<{ status: number; data?: any; errors?: any[] }> {
    if (c.query.startsWith("subscription")) {
      const response = await client.yoga.fetch("http://localhost/graphql", {
        method: "POST",
        headers: { authorization: `Bearer ${b.secret}`, "content-type": "application/json", accept: "text/event-stream" },
        body: JSON.stringify({ query: c.query, variables: c.variables?.(fx) ?? {} }),
      });
      const text = await response.text(); // a refused subscription ends after its one event
      const data = text.split("\n").find((line) => line.startsWith("data: "));
      return { status: response.status, ...(data ? (JSON.parse(data.slice(6)) as object) : {}) };
    }
    if (c.query !== "(multipart)") return client.request(c.query, c.variables?.(fx) ?? {}, b.secret);
    const body = new FormData();
    body.set("operations", JSON.stringify({ query: "mutation($file: File!, $n: String!) { importDataset(input: { name: $n, file: $file }) { imported } }", variables: { file: null, n: fx.dataset.name } }));
    body.set("map", JSON.stringify({ 0: ["variables.file"] }));
    body.set("0", new File([ITEMS_B], "items.jsonl", { type: "application/x-ndjson" }));
    const response = await client.yoga.fetch("http://localhost/graphql", { method: "POST", headers: { authorization: `Bearer ${b.secret}` }, body });
    return { status: response.status, ...((await response.json()) as object) };
  }

  const all = Object.entries(CASES).flatMap(([field, cases]) => cases.map((c) => [field, c.label, c] as const));
  it.each(all)("%s (%s)", async (_field, _label, c) => {
    const own = typeof c.expect === "object" && "own" in c.expect;
    const watched = own ? [a.workspace.id] : [a.workspace.id, b.workspace.id];
    const before = await snapshot(app, plans, watched);
    const result = await callAsB(c);
    const after = await snapshot(app, plans, watched);
    expect(after).toEqual(before);

    const text = JSON.stringify(result);
    // Nothing of A that B did not send: its workspace, its code, its records' content.
    for (const secret of [a.workspace.name, a.workspace.id, "tenant A reply", "tenant A answer", "keyword_check(ctx, required", "tenant_a_secret_check(ctx)"]) expect(text).not.toContain(secret);
    expect(text).not.toContain("INTERNAL_SERVER_ERROR");
    expect(text).not.toContain("Unexpected error");

    if (c.expect === "NOT_FOUND") {
      const codes = (result.errors ?? []).map((e) => e.extensions?.code);
      expect(codes.length, `no error: ${text}`).toBeGreaterThan(0);
      expect(new Set(codes)).toEqual(new Set(["NOT_FOUND"]));
      const data = result.data ? Object.values(result.data)[0] : null;
      if (Array.isArray(data)) expect(data.every((v) => v === null)).toBe(true);
      else expect(data ?? null).toBeNull();
    } else if ("refused" in c.expect) {
      expect(result.errors?.map((e) => e.extensions?.code)).toEqual(["BAD_USER_INPUT"]);
      expect(result.errors?.[0]?.extensions?.issues?.map((i: { path: string }) => i.path)).toEqual(["sourceCode", `libraryPins.${fx.library.name}`]);
    } else if ("invalid" in c.expect) {
      expect(result.errors).toBeUndefined();
      const report = Object.values(result.data ?? {})[0] as { valid: boolean; issues: { path: string; message: string }[] };
      expect(report.valid).toBe(false);
      expect(report.issues.map((i) => i.path)).toEqual(["sourceCode", `libraryPins.${fx.library.name}`]);
      for (const issue of report.issues) expect(issue.message).toMatch(/(no shared library|does not exist) .*this workspace|this workspace has no shared library/);
    } else if ("none" in c.expect) {
      expect(result.errors).toBeUndefined();
      const edges = c.expect.none.split(".").reduce((v: any, k) => v?.[k], result.data) as ({ node: Listed } | Listed)[];
      expect(Array.isArray(edges)).toBe(true);
      const theirs = new Set([fx.template.gid, fx.dataset.gid, fx.library.name, fx.destination.gid, fx.monitor.gid, fx.connection.gid, fx.modelPrice.model]);
      const listed = edges.map((e) => ("node" in e ? e.node : e));
      expect(listed.filter((n) => theirs.has(n.id ?? "") || theirs.has(n.name ?? "") || theirs.has(n.model ?? ""))).toEqual([]);
    } else if ("empty" in c.expect) {
      expect(result.errors).toBeUndefined();
      const edges = c.expect.empty.split(".").reduce((v: any, k) => v?.[k], result.data);
      expect(edges).toEqual([]);
    } else {
      expect(result.errors, text).toBeUndefined();
    }
  });
});

describe("the tenancy snapshot", () => {
  it("sees one changed row, and a row of a workspace of its own only", async () => {
    const app = createTestApp();
    try {
      const mine = await createTestWorkspace(app, "snapshot-self");
      const plans = await tablePlans(app);
      expect(plans.map((p) => p.table)).toEqual(expect.arrayContaining(["Workspace", "TemplateVersion", "SharedLibraryVersion", "ExperimentEvaluator", "EvaluatorDependency", "Run", "Score"]));
      const before = await snapshot(app, plans, [mine.workspace.id]);
      await app.prisma.apiKey.update({ where: { id: mine.apiKey.id }, data: { name: "renamed" } });
      const after = await snapshot(app, plans, [mine.workspace.id]);
      expect(Object.keys(after).filter((t) => after[t] !== before[t])).toEqual(["ApiKey"]);
    } finally {
      await app.close();
    }
  });
});
