import type { ApiClient } from "./client.js";
import { CliError } from "./exit-codes.js";

/**
 * The GraphQL operations of the CLI and the MCP tools, one typed function each. Both adapters
 * call these and nothing else, so every rule (validation, the 409 on settings, workspace scope)
 * is the API's own and holds identically in GraphQL, CLI and MCP.
 */

/** A setting of a template (TemplateParam). */
export interface Setting {
  name: string;
  type: string;
  label: string | null;
  description: string | null;
  default: unknown;
  hasDefault: boolean;
  required: boolean;
  options: string[] | null;
}

const SETTING = "name type label description default hasDefault required options";
const VERSION = `version sourceCode libraryPins sharedImports resolvedLibraries entryPoint { kind name } params { ${SETTING} } createdAt`;
const TEMPLATE = `id name description latestVersionNumber limits createdAt updatedAt latestVersion { ${VERSION} }`;
const EVALUATOR = `id name kind enabled archived params resolvedParams spanKind spanNamePattern attributeEquals attributeContains resourceAttributeEquals rootSpansOnly samplingRate isolation limits runLimits { cpuTimeMs wallTimeMs memoryBytes }
  pinnedVersion followsLatest template { id name } templateVersion { version params { ${SETTING} } }
  dependencies { dependsOn { name } gate { score at } } createdAt updatedAt`;
const LIBRARY = `id name description deprecated deprecationNote latestVersionNumber updatedAt`;
const EXPERIMENT = `id name status itemCount createdAt startedAt finishedAt dataset { id name }
  evaluators { evaluator { id name } source params templateVersion { version template { name } } }
  dependencyWaitSeconds
  progress { total done failed skipped pending runsRecorded runsTotal fraction waiting waitingUntil waits { evaluatorName items waitingFor { name } reason expiresAt } }`;
const BACKFILL = `id name status error windowStart windowEnd filter sampleRate maxSpans rerun includeDependencies spanCount batchSize createdAt startedAt finishedAt cancelledAt
  evaluators { source evaluator { id name } templateVersion { version template { name } } }
  progress { spansTotal spansDone batchesTotal batchesDone runsRecorded pairsSkipped runsSuperseded fraction }`;
const ESTIMATE = `windowStart windowEnd spans runs reruns evaluators { name source readBy templateVersion spansMatched alreadyEvaluated toRun }`;
const SUMMARY = `summary { evaluatorName name dataType count valueCount mean passed passRate }
  failures { evaluatorName outcome count }`;

/** A template with its latest version. */
export interface TemplateRecord {
  id: string;
  name: string;
  description: string;
  latestVersionNumber: number;
  /** The sandbox limits its evaluators get unless they set their own. */
  limits: { cpuTimeMs?: number; wallTimeMs?: number; memoryBytes?: number };
  createdAt: string;
  updatedAt: string;
  latestVersion: TemplateVersionRecord;
}

/** One version of a template. */
export interface TemplateVersionRecord {
  version: number;
  sourceCode: string;
  libraryPins: Record<string, number>;
  sharedImports: string[];
  resolvedLibraries: Record<string, number>;
  entryPoint: { kind: string; name: string };
  params: Setting[];
  createdAt: string;
}

/** An evaluator with its rule, values and template version. */
export interface EvaluatorRecord {
  id: string;
  name: string;
  kind: string;
  enabled: boolean;
  archived: boolean;
  params: Record<string, unknown>;
  resolvedParams: Record<string, unknown>;
  spanKind: string;
  spanNamePattern: string | null;
  attributeEquals: Record<string, unknown>;
  attributeContains: Record<string, unknown>;
  resourceAttributeEquals: Record<string, unknown>;
  rootSpansOnly: boolean;
  samplingRate: number;
  /** The sandbox limits it asks for ({} : its template's, then the defaults). */
  limits: { cpuTimeMs?: number; wallTimeMs?: number; memoryBytes?: number };
  /** What one item of its runs gets. */
  runLimits: { cpuTimeMs: number; wallTimeMs: number; memoryBytes: number };
  isolation: string;
  pinnedVersion: number | null;
  followsLatest: boolean;
  template: { id: string; name: string } | null;
  templateVersion: { version: number; params: Setting[] } | null;
  dependencies: { dependsOn: { name: string }; gate: { score: string; at: number | null } | null }[];
  createdAt: string;
  updatedAt: string;
}

/** A built-in starter. */
export interface StarterRecord {
  id: string;
  name: string;
  description: string;
  settingNames: string[];
  params: Setting[];
}

/** A shared library. */
export interface LibraryRecord {
  id: string;
  name: string;
  description: string;
  deprecated: boolean;
  deprecationNote: string | null;
  latestVersionNumber: number;
  updatedAt: string;
}

/** The result of a try_code run. */
export interface TryCodeRecord {
  outcome: string;
  scores: { name: string; value: unknown; dataType: string; higherIsBetter: boolean; comment: string | null; metadata: unknown }[];
  stdout: string;
  stderr: string;
  error: { type: string; message: string; traceback: string | null } | null;
  durationMs: number;
  params: Record<string, unknown>;
  templateVersion: number | null;
  libraryVersions: Record<string, number>;
  /** The output passed the cap: it ends with a marker, the scores were kept. */
  outputTruncated: boolean;
  /** ctx.score reads (literal names) that found no score in the sample and returned their default. */
  scoreFallbacks: { evaluator: string; score: string | null; line: number }[];
}

/** An experiment with its progress. */
export interface ExperimentRecord {
  id: string;
  name: string;
  status: string;
  itemCount: number;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  dataset: { id: string; name: string };
  evaluators: { evaluator: { id: string; name: string }; source: string; params: unknown; templateVersion: { version: number; template: { name: string } } }[];
  /** How long its dependents wait for posted scores of external evaluators, from creation. */
  dependencyWaitSeconds: number;
  progress: {
    total: number;
    done: number;
    failed: number;
    skipped: number;
    pending: number;
    runsRecorded: number;
    runsTotal: number;
    fraction: number;
    /** Pending items waiting for posted scores, until `waitingUntil`. */
    waiting: number;
    waitingUntil: string | null;
    waits: { evaluatorName: string; items: number; waitingFor: { name: string }[]; reason: string; expiresAt: string }[];
  };
  summary?: { evaluatorName: string; name: string; dataType: string; count: number; valueCount: number; mean: number | null; passed: number | null; passRate: number | null }[];
  failures?: { evaluatorName: string; outcome: string; count: number }[];
}

/** What a backfill would read and record (estimateBackfill). */
export interface BackfillEstimateRecord {
  windowStart: string;
  windowEnd: string;
  spans: number;
  runs: number;
  reruns: number;
  evaluators: { name: string; source: string; readBy: string[]; templateVersion: number; spansMatched: number; alreadyEvaluated: number; toRun: number }[];
}

/** A backfill with its progress (and, from `get`, its summary). */
export interface BackfillRecord {
  id: string;
  name: string;
  status: string;
  error: string | null;
  windowStart: string;
  windowEnd: string;
  filter: Record<string, unknown>;
  sampleRate: number;
  maxSpans: number;
  rerun: boolean;
  includeDependencies: boolean;
  spanCount: number;
  batchSize: number;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  cancelledAt: string | null;
  evaluators: { source: string; evaluator: { id: string; name: string }; templateVersion: { version: number; template: { name: string } } }[];
  progress: { spansTotal: number; spansDone: number; batchesTotal: number; batchesDone: number; runsRecorded: number; pairsSkipped: number; runsSuperseded: number; fraction: number };
  summary?: { evaluatorName: string; name: string; dataType: string; count: number; valueCount: number; mean: number | null; passed: number | null; passRate: number | null }[];
  runsByOutcome?: { evaluatorName: string; outcome: string; count: number }[];
  failures?: { evaluatorName: string; outcome: string; count: number }[];
}

/** A stored span as `spans list` shows it: both ids, what it is, when, and its scores. */
export interface SpanRecord {
  /** The global id (what `explain`, `try --span` and the GraphQL `span(id)` take). */
  id: string;
  traceId: string;
  /** The span's own id within its trace, as the application sent it. */
  spanId: string;
  parentSpanId: string | null;
  name: string;
  kind: string;
  status: string;
  startTime: string;
  endTime: string | null;
  scores: { evaluator: { name: string }; name: string; value: unknown }[];
}

/** The filters of the `spans` query (SpanFilter), with the evaluator as a global id. */
export interface SpanFilterInput {
  traceId?: string;
  name?: string;
  kind?: string;
  from?: string;
  to?: string;
  evaluatorId?: string;
  outcome?: string;
  scoreName?: string;
  scoreValue?: unknown;
  scoreMin?: number;
  scoreMax?: number;
}

const SPAN = `id traceId spanId parentSpanId name kind status startTime endTime scores { evaluator { name } name value }`;

/** The dry-run check of a template draft. */
export interface ValidationRecord {
  valid: boolean;
  issues: { path: string; message: string }[];
  entryPoint: { kind: string; name: string } | null;
  sharedImports: string[];
}

type Edges<T> = { edges: { node: T }[] };
const nodes = <T>(c: Edges<T>) => c.edges.map((e) => e.node);

/** `{id}` when `value` is a global ID of `type` (base64 of `Type:uuid`), else `{name}`. */
export function idOrName(type: string, value: string): { id?: string; name?: string } {
  try {
    const decoded = Buffer.from(value, "base64").toString("utf8");
    if (decoded.startsWith(`${type}:`) && Buffer.from(decoded).toString("base64") === value) return { id: value };
  } catch {
    // not base64: a name
  }
  return { name: value };
}

/** Creates the operations over one API client. */
export function createOperations(api: ApiClient) {
  const getTemplate = async (ref: string) =>
    (await api.request<{ template: TemplateRecord }>(`query($id: ID, $name: String) { template(id: $id, name: $name) { ${TEMPLATE} } }`, idOrName("Template", ref))).template;
  const getEvaluator = async (ref: string) =>
    (await api.request<{ evaluator: EvaluatorRecord }>(`query($id: ID, $name: String) { evaluator(id: $id, name: $name) { ${EVALUATOR} } }`, idOrName("Evaluator", ref))).evaluator;

  return {
    viewer: async () => (await api.request<{ viewer: { workspace: { id: string; name: string }; apiKey: { name: string; prefix: string } } }>(`{ viewer { workspace { id name } apiKey { name prefix } } }`)).viewer,

    listStarters: async () =>
      nodes((await api.request<{ starters: Edges<StarterRecord> }>(`{ starters(first: 100) { edges { node { id name description settingNames params { ${SETTING} } } } } }`)).starters),
    getStarter: async (id: string) =>
      (await api.request<{ starter: StarterRecord & { file: string; sourceCode: string } }>(`query($id: String!) { starter(id: $id) { id name description settingNames params { ${SETTING} } file sourceCode } }`, { id })).starter,

    listTemplates: async () => nodes((await api.request<{ templates: Edges<TemplateRecord> }>(`{ templates(first: 100) { edges { node { ${TEMPLATE} } } } }`)).templates),
    getTemplate,
    /** A template version (the latest when `version` is omitted). */
    getTemplateVersion: async (ref: string, version?: number) => {
      const by = idOrName("Template", ref);
      return (
        await api.request<{ templateVersion: TemplateVersionRecord }>(
          `query($id: ID, $name: String, $version: Int) { templateVersion(templateId: $id, templateName: $name, version: $version) { ${VERSION} } }`,
          { ...by, version },
        )
      ).templateVersion;
    },
    createTemplate: async (input: Record<string, unknown>) =>
      (await api.request<{ createTemplate: { template: TemplateRecord } }>(`mutation($input: CreateTemplateInput!) { createTemplate(input: $input) { template { ${TEMPLATE} } } }`, { input })).createTemplate.template,
    createTemplateFromStarter: async (input: { starterId: string; name?: string; description?: string }) =>
      (await api.request<{ createTemplateFromStarter: { template: TemplateRecord } }>(`mutation($input: CreateTemplateFromStarterInput!) { createTemplateFromStarter(input: $input) { template { ${TEMPLATE} } } }`, { input })).createTemplateFromStarter.template,
    /** Updates a template named by name or id. */
    updateTemplate: async (ref: string, fields: Record<string, unknown>) => {
      const { id } = await getTemplate(ref);
      return (await api.request<{ updateTemplate: { template: TemplateRecord } }>(`mutation($input: UpdateTemplateInput!) { updateTemplate(input: $input) { template { ${TEMPLATE} } } }`, { input: { ...fields, id } })).updateTemplate.template;
    },
    deleteTemplate: async (ref: string) => {
      const { id } = await getTemplate(ref);
      return (await api.request<{ deleteTemplate: { template: { id: string; name: string } } }>(`mutation($id: ID!) { deleteTemplate(input: {id: $id}) { template { id name } } }`, { id })).deleteTemplate.template;
    },
    validateTemplate: async (draft: { sourceCode: string; params?: unknown; libraryPins?: unknown; name?: string; description?: string; values?: unknown }) =>
      (
        await api.request<{ validateTemplate: ValidationRecord }>(
          `query($sourceCode: String!, $params: JSON, $libraryPins: JSON, $name: String, $description: String, $values: JSON) {
            validateTemplate(sourceCode: $sourceCode, params: $params, libraryPins: $libraryPins, name: $name, description: $description, values: $values) {
              valid issues { path message } entryPoint { kind name } sharedImports } }`,
          draft,
        )
      ).validateTemplate,

    listEvaluators: async (options: { template?: string } = {}) => {
      const templateId = options.template ? (await getTemplate(options.template)).id : undefined;
      return nodes((await api.request<{ evaluators: Edges<EvaluatorRecord> }>(`query($t: ID) { evaluators(first: 100, templateId: $t) { edges { node { ${EVALUATOR} } } } }`, { t: templateId })).evaluators);
    },
    getEvaluator,
    createEvaluator: async (input: Record<string, unknown>) =>
      (await api.request<{ createEvaluator: { evaluator: EvaluatorRecord } }>(`mutation($input: CreateEvaluatorInput!) { createEvaluator(input: $input) { evaluator { ${EVALUATOR} } } }`, { input })).createEvaluator.evaluator,
    /** Updates an evaluator named by name or id (the MCP example's `update_evaluator` by name). */
    updateEvaluator: async (ref: string, fields: Record<string, unknown>) => {
      const { id } = await getEvaluator(ref);
      return (await api.request<{ updateEvaluator: { evaluator: EvaluatorRecord } }>(`mutation($input: UpdateEvaluatorInput!) { updateEvaluator(input: $input) { evaluator { ${EVALUATOR} } } }`, { input: { ...fields, id } })).updateEvaluator.evaluator;
    },
    deleteEvaluator: async (ref: string) => {
      const { id } = await getEvaluator(ref);
      return (await api.request<{ deleteEvaluator: { evaluator: { id: string; name: string } } }>(`mutation($id: ID!) { deleteEvaluator(input: {id: $id}) { evaluator { id name } } }`, { id })).deleteEvaluator.evaluator;
    },
    /**
     * A span's global id from what a user has: the global id, `TRACE_ID:SPAN_ID` (split at the last
     * colon, as Oodle's CLI reads span references), or the span's own id with `traceId`.
     * @throws CliError BAD_USER_INPUT (at `field`) for anything else, NOT_FOUND for no such span.
     */
    spanGlobalId: async (ref: string, traceId?: string, field = "span"): Promise<string> => {
      let trace = traceId;
      let own = ref;
      if (trace === undefined) {
        if (idOrName("Span", ref).id) return ref;
        const colon = ref.lastIndexOf(":");
        if (colon <= 0 || colon === ref.length - 1) {
          throw new CliError("BAD_USER_INPUT", `"${ref}" is not a span's global id: give TRACE_ID:SPAN_ID, or the span's own id with its trace id (--trace / traceId); oodle spans list shows both`, field);
        }
        trace = ref.slice(0, colon);
        own = ref.slice(colon + 1);
      }
      const spans = await api
        .request<{ trace: { spans: { id: string; spanId: string }[] } }>(`query($t: String!) { trace(traceId: $t) { spans { id spanId } } }`, { t: trace })
        .then((r) => r.trace.spans, (error) => {
          if ((error as { code?: string }).code === "NOT_FOUND") return [];
          throw error;
        });
      const found = spans.find((s) => s.spanId === own);
      if (!found) throw new CliError("NOT_FOUND", `no span "${own}" in trace "${trace}"${spans.length ? ` (it has ${spans.slice(0, 10).map((s) => s.spanId).join(", ")}${spans.length > 10 ? ", …" : ""})` : " (no span has that trace id)"}`, field);
      return found.id;
    },
    /** A page of the workspace's spans, newest start first (at most 100). */
    listSpans: async (filter: SpanFilterInput, page: { first?: number; after?: string } = {}) => {
      const r = await api.request<{ spans: Edges<SpanRecord> & { pageInfo: { hasNextPage: boolean; endCursor: string | null } } }>(
        `query($filter: SpanFilter, $first: Int, $after: String) { spans(filter: $filter, first: $first, after: $after) { edges { node { ${SPAN} } } pageInfo { hasNextPage endCursor } } }`,
        { filter, first: page.first, after: page.after },
      );
      return { spans: nodes(r.spans), hasNextPage: r.spans.pageInfo.hasNextPage, endCursor: r.spans.pageInfo.endCursor };
    },
    /** Why an evaluator did or did not run on a span, and its run there if any (`spanId`: a span's global id, see spanGlobalId). */
    explainMatch: async (spanId: string, evaluator: string) => {
      const { id } = await getEvaluator(evaluator);
      return (
        await api.request<{
          explainMatch: MatchExplanationRecord & { samplingDraw: number; archived: boolean; ruleChangedSinceIngest: boolean };
        }>(
          `query($s: ID!, $e: ID!) { explainMatch(spanId: $s, evaluatorId: $e) { matched reason detail conditions { condition key passed detail } incomplete samplingDraw archived ruleChangedSinceIngest run { outcome skipReason } } }`,
          { s: spanId, e: id },
        )
      ).explainMatch;
    },

    tryCode: async (input: Record<string, unknown>) =>
      (
        await api.request<{ tryCode: TryCodeRecord }>(
          `mutation($input: TryCodeInput!) { tryCode(input: $input) { outcome scores { name value dataType higherIsBetter comment metadata } stdout stderr error { type message traceback } durationMs params templateVersion libraryVersions outputTruncated scoreFallbacks { evaluator score line } } }`,
          { input },
        )
      ).tryCode,

    listLibraries: async () => nodes((await api.request<{ sharedLibraries: Edges<LibraryRecord> }>(`{ sharedLibraries(first: 100) { edges { node { ${LIBRARY} } } } }`)).sharedLibraries),
    /** A shared library with one version's code: `version`, else the latest. */
    getLibrary: async (name: string, version?: number) => {
      const versionField = version === undefined ? "latestVersion" : "version(version: $v)";
      const result = await api.request<{
        sharedLibrary: LibraryRecord & { version: { version: number; sourceCode: string; note: string; imports: string[] } | null; pinnedBy: { templateName: string; templateVersions: number[]; pinnedVersions: number[] }[] };
      }>(
        `query($name: String!${version === undefined ? "" : ", $v: Int!"}) { sharedLibrary(name: $name) { ${LIBRARY} version: ${versionField} { version sourceCode note imports } pinnedBy { templateName templateVersions pinnedVersions } } }`,
        { name, v: version },
      );
      return result.sharedLibrary;
    },
    libraryLatest: async (name: string) =>
      (await api.request<{ sharedLibrary: { latestVersion: { version: number; sourceCode: string; note: string } } }>(`query($name: String!) { sharedLibrary(name: $name) { latestVersion { version sourceCode note } } }`, { name })).sharedLibrary.latestVersion,
    libraryVersions: async (name: string) =>
      nodes(
        (await api.request<{ sharedLibrary: { versions: Edges<{ version: number; note: string; createdAt: string; imports: string[] }> } }>(`query($name: String!) { sharedLibrary(name: $name) { versions(first: 100) { edges { node { version note createdAt imports } } } } }`, { name }))
          .sharedLibrary.versions,
      ),
    libraryDiff: async (name: string, from: number, to: number) =>
      (await api.request<{ sharedLibrary: { diff: { from: number; to: number; added: number; removed: number; unified: string } } }>(`query($name: String!, $f: Int!, $t: Int!) { sharedLibrary(name: $name) { diff(from: $f, to: $t) { from to added removed unified } } }`, { name, f: from, t: to })).sharedLibrary.diff,
    publishLibrary: async (input: { name: string; sourceCode: string; note?: string; description?: string }) =>
      (await api.request<{ publishSharedLibraryVersion: { version: { version: number; library: { name: string } } } }>(`mutation($input: PublishSharedLibraryVersionInput!) { publishSharedLibraryVersion(input: $input) { version { version library { name } } } }`, { input })).publishSharedLibraryVersion.version,
    deprecateLibrary: async (input: { name: string; deprecated?: boolean; note?: string }) =>
      (await api.request<{ deprecateSharedLibrary: { library: LibraryRecord } }>(`mutation($input: DeprecateSharedLibraryInput!) { deprecateSharedLibrary(input: $input) { library { ${LIBRARY} } } }`, { input })).deprecateSharedLibrary.library,
    deleteLibrary: async (name: string) =>
      (await api.request<{ deleteSharedLibrary: { name: string; deletedId: string } }>(`mutation($name: String!) { deleteSharedLibrary(input: {name: $name}) { name deletedId } }`, { name })).deleteSharedLibrary,

    ingestSpans: async (spans: unknown[]) =>
      (
        await api.request<{ ingestSpans: { evaluationsQueued: number; spans: { index: number; id: string; created: boolean }[]; rejected: { index: number; issues: { path: string; message: string }[] }[] } }>(
          `mutation($input: IngestSpansInput!) { ingestSpans(input: $input) { evaluationsQueued spans { index id created } rejected { index issues { path message } } } }`,
          { input: { spans } },
        )
      ).ingestSpans,
    /** The sample document of a stored span (what an evaluator sees). */
    spanDocument: async (id: string) => (await api.request<{ span: { document: unknown } }>(`query($id: ID!) { span(id: $id) { document } }`, { id })).span.document,

    listDatasets: async () => nodes((await api.request<{ datasets: Edges<{ id: string; name: string; itemCount: number; createdAt: string }> }>(`{ datasets(first: 100) { edges { node { id name itemCount createdAt } } } }`)).datasets),
    getDataset: async (ref: string) =>
      (await api.request<{ dataset: { id: string; name: string; itemCount: number } }>(`query($id: ID, $name: String) { dataset(id: $id, name: $name) { id name itemCount } }`, idOrName("Dataset", ref))).dataset,
    importDataset: async (name: string, file: string, skipBadLines = false) =>
      (
        await api.upload<{ importDataset: { imported: number; badLineCount: number; badLines: { line: number; message: string }[]; dataset: { id: string; name: string; itemCount: number } } }>(
          `mutation($input: ImportDatasetInput!) { importDataset(input: $input) { imported badLineCount badLines { line message } dataset { id name itemCount } } }`,
          { input: { name, file: null, skipBadLines } },
          "input.file",
          file,
        )
      ).importDataset,

    createExperiment: async (input: { datasetId: string; evaluatorIds?: string[]; templateIds?: string[]; name?: string; batchSize?: number; dependencyWaitSeconds?: number }) =>
      (await api.request<{ createExperiment: { experiment: ExperimentRecord } }>(`mutation($input: CreateExperimentInput!) { createExperiment(input: $input) { experiment { ${EXPERIMENT} } } }`, { input })).createExperiment.experiment,
    getExperiment: async (id: string, withSummary = false) =>
      (await api.request<{ experiment: ExperimentRecord }>(`query($id: ID!) { experiment(id: $id) { ${EXPERIMENT} ${withSummary ? SUMMARY : ""} } }`, { id })).experiment,
    listExperiments: async () => nodes((await api.request<{ experiments: Edges<ExperimentRecord> }>(`{ experiments(first: 50) { edges { node { ${EXPERIMENT} } } } }`)).experiments),
    /**
     * An experiment's global id from its id or its name (names need not be unique).
     * @throws CliError NOT_FOUND for an unknown name, BAD_USER_INPUT (at `field`) when several have it.
     */
    experimentId: async (ref: string, field = "experiment"): Promise<string> => {
      const by = idOrName("Experiment", ref);
      if (by.id) return by.id;
      const found = nodes((await api.request<{ experiments: Edges<{ id: string; createdAt: string }> }>(`query($n: String) { experiments(first: 10, name: $n) { edges { node { id createdAt } } } }`, { n: by.name })).experiments);
      if (found.length === 0) throw new CliError("NOT_FOUND", `no experiment is named "${ref}" (give its name or id: oodle experiments list)`, field);
      if (found.length > 1) throw new CliError("BAD_USER_INPUT", `${found.length === 10 ? "10 or more" : found.length} experiments are named "${ref}": give an id (${found.map((e) => `${e.id} of ${e.createdAt}`).join(", ")})`, field);
      return found[0]!.id;
    },
    compareExperiments: async (baseId: string, candidateId: string, limit = 20) =>
      (
        await api.request<{
          compareExperiments: {
            changeCount: number;
            changedItems: number;
            scores: { evaluatorName: string; name: string; meanDelta: number | null; passRateDelta: number | null; improved: number; regressed: number; changed: number; base: { mean: number | null; passRate: number | null } | null; candidate: { mean: number | null; passRate: number | null } | null }[];
            changes: { position: number; externalId: string | null; evaluatorName: string; scoreName: string | null; direction: string; baseValue: unknown; candidateValue: unknown; baseOutcome: string | null; candidateOutcome: string | null }[];
          };
        }>(
          `query($b: ID!, $c: ID!, $l: Int) { compareExperiments(baseId: $b, candidateId: $c, limit: $l) { changeCount changedItems
            scores { evaluatorName name meanDelta passRateDelta improved regressed changed base { mean passRate } candidate { mean passRate } }
            changes { position externalId evaluatorName scoreName direction baseValue candidateValue baseOutcome candidateOutcome } } }`,
          { b: baseId, c: candidateId, l: limit },
        )
      ).compareExperiments,

    estimateBackfill: async (input: Record<string, unknown>) =>
      (await api.request<{ estimateBackfill: BackfillEstimateRecord }>(`query($input: BackfillInput!) { estimateBackfill(input: $input) { ${ESTIMATE} } }`, { input })).estimateBackfill,
    createBackfill: async (input: Record<string, unknown>) =>
      (await api.request<{ createBackfill: { backfill: BackfillRecord; estimate: BackfillEstimateRecord } }>(`mutation($input: CreateBackfillInput!) { createBackfill(input: $input) { backfill { ${BACKFILL} } estimate { ${ESTIMATE} } } }`, { input })).createBackfill,
    getBackfill: async (id: string, withSummary = false) =>
      (
        await api.request<{ backfill: BackfillRecord }>(
          `query($id: ID!) { backfill(id: $id) { ${BACKFILL} ${withSummary ? "summary { evaluatorName name dataType count valueCount mean passed passRate } runsByOutcome { evaluatorName outcome count } failures { evaluatorName outcome count }" : ""} } }`,
          { id },
        )
      ).backfill,
    listBackfills: async (options: { status?: string; evaluatorId?: string } = {}) => {
      const r = await api.request<{ backfills: Edges<BackfillRecord>; backfillLimits: { active: number; maxConcurrent: number } }>(
        `query($status: BackfillStatus, $e: ID) { backfills(first: 100, status: $status, evaluatorId: $e) { edges { node { ${BACKFILL} } } } backfillLimits { active maxConcurrent } }`,
        { status: options.status, e: options.evaluatorId },
      );
      return { backfills: nodes(r.backfills), ...r.backfillLimits };
    },
    cancelBackfill: async (id: string) =>
      (await api.request<{ cancelBackfill: { backfill: BackfillRecord } }>(`mutation($id: ID!) { cancelBackfill(input: {id: $id}) { backfill { ${BACKFILL} } } }`, { id })).cancelBackfill.backfill,
  };
}

/** The operations object. */
export type Operations = ReturnType<typeof createOperations>;

/** What explainMatch answers, as the CLI and MCP read it. */
export interface MatchExplanationRecord {
  matched: boolean;
  reason: string | null;
  detail: string;
  /** Every part of the rule, passed or not (absent from older answers). */
  conditions?: { condition: string; key: string | null; passed: boolean; detail: string }[];
  /** Set when the span's sender dropped attributes, events or links: the document is incomplete. */
  incomplete?: string | null;
  run: { outcome: string; skipReason: string | null } | null;
}

/**
 * The answer of explainMatch for people (CLI and MCP): the rule's decision, then the run on the
 * span if any (a match can still be skipped by a gate); then one line per part of the rule,
 * `ok` or `NO`, so it says which part matched and which did not; then `!` and why the span's
 * document is incomplete, when its sender dropped attributes.
 */
export function explanationLine(r: MatchExplanationRecord): string {
  const rule = `${r.matched ? "matches" : `does not match (${r.reason})`}: ${r.detail}`;
  const first = r.run ? `${rule}; its run: ${r.run.outcome}${r.run.skipReason ? ` (${r.run.skipReason})` : ""}` : rule;
  const parts = (r.conditions ?? []).map((c) => `  ${c.passed ? "ok" : "NO"}  ${c.condition}${c.key !== null ? ` ${c.key}` : ""}: ${c.detail}`);
  return [first, ...parts, ...(r.incomplete ? [`  !   ${r.incomplete}`] : [])].join("\n");
}
