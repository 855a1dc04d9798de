import * as Doc from "./generated/graphql.js";
import { ApiError, ClientError, type ApiClient } from "./http.js";
import { createConnectionOperations } from "./connection-operations.js";
import { createPriceOperations } from "./price-operations.js";
import { createMonitorOperations } from "./monitor-operations.js";
import { idOrName } from "./id-or-name.js";
import { allNodes, PAGE_SIZE } from "./pages.js";

/**
 * The GraphQL operations of the CLI and the MCP tools, one typed function each over the generated
 * documents (documents/*.graphql → generated/graphql.ts). Both adapters call these and nothing
 * else, so every rule (validation, the 409 on settings, workspace scope) is the API's own and holds
 * identically in GraphQL, CLI and MCP. Lists read every page (see pages.ts).
 *
 * Inputs that come from a user's file or flags (`Record<string, unknown>`) are sent as given: the
 * API checks them by its own schema and names any field it refuses, so the CLI and MCP refuse
 * exactly what GraphQL refuses.
 */

/** A setting of a template (TemplateParam). */
export type Setting = Doc.SettingFieldsFragment;
/** A template with its latest version. */
export type TemplateRecord = Doc.TemplateFieldsFragment;
/** One version of a template. */
export type TemplateVersionRecord = Doc.TemplateVersionFieldsFragment;
/** An evaluator with its rule, values and template version. */
export type EvaluatorRecord = Doc.EvaluatorFieldsFragment;
/** A built-in starter. */
export type StarterRecord = Doc.StarterFieldsFragment;
/** A shared library. */
export type LibraryRecord = Doc.LibraryFieldsFragment;
/** The result of a try_code run (`outputTruncated`: the output passed the cap, the scores were kept; `scoreFallbacks`: ctx.score reads that found no score and returned their default). */
export type TryCodeRecord = Doc.TryCodeMutation["tryCode"];
/** An experiment with its progress (and, from `getExperiment(id, true)`, its summary and failures). */
export type ExperimentRecord = Doc.ExperimentFieldsFragment & Partial<Pick<Doc.GetExperimentQuery["experiment"], "summary" | "failures">>;
/** What a backfill would read and record (estimateBackfill). */
export type BackfillEstimateRecord = Doc.BackfillEstimateFieldsFragment;
/** A backfill with its progress (and, from `getBackfill(id, true)`, its summary, runs by outcome and failures). */
export type BackfillRecord = Doc.GetBackfillQuery["backfill"];
/** A stored span as `spans list` shows it: both ids (`id` global, `spanId` its own within the trace), what it is, when, and its scores. */
export type SpanRecord = Doc.SpanRowFieldsFragment;
/** The dry-run check of a template draft. */
export type ValidationRecord = Doc.ValidateTemplateQuery["validateTemplate"];
/** A workspace's limits (workspaceLimits): retention, rate limits, backlog bound. */
export type WorkspaceLimitsRecord = Doc.WorkspaceLimitsFieldsFragment;
/** One trace or session evaluator's evaluation of one group (traceEvaluations / sessionEvaluations). */
export type GroupEvaluationRecord = Doc.GroupEvaluationFieldsFragment;
/** A trace or session evaluator's group settings as they apply. */
export type GroupSettingsRecord = Doc.GroupSettingsFieldsFragment;
/** What explainMatch answers, as the CLI and MCP read it. */
export type MatchExplanationRecord = Doc.ExplainMatchQuery["explainMatch"];

/**
 * The filters of the `spans` query (SpanFilter), with the evaluator as a global id. `kind` and
 * `outcome` are a user's words: the API refuses one outside its list, naming the field.
 */
export type SpanFilterInput = Omit<Doc.SpanFilter, "kind" | "outcome"> & { kind?: string; outcome?: string };

/** Creates the operations over one API client. */
export function createOperations(api: ApiClient) {
  const getTemplate = async (ref: string) => (await api.request(Doc.GetTemplateDocument, idOrName("Template", ref))).template;
  const getEvaluator = async (ref: string) => (await api.request(Doc.GetEvaluatorDocument, idOrName("Evaluator", ref))).evaluator;

  return {
    /** Monitors, alert destinations and deliveries (their own file: monitor-operations.ts). */
    monitors: createMonitorOperations(api),
    /** Connections to LLM providers (their own file: connection-operations.ts). */
    connections: createConnectionOperations(api),
    /** Model prices: the cost of judge calls (their own file: price-operations.ts). */
    prices: createPriceOperations(api),
    viewer: async () => (await api.request(Doc.ViewerDocument)).viewer,

    /** The workspace's limits: retention in force (and where it comes from), rate limits, backlog bound. */
    workspaceLimits: async () => (await api.request(Doc.WorkspaceLimitsDocument)).workspaceLimits,
    /** Sets the workspace's retention: exactly one of `retentionDays`, `keepForever: true`, `useDefault: true` (the API checks it and names the field it refuses). */
    setWorkspaceRetention: async (input: Doc.SetWorkspaceRetentionInput) => (await api.request(Doc.SetWorkspaceRetentionDocument, { input })).setWorkspaceRetention.limits,

    listStarters: async () => allNodes(async (after) => (await api.request(Doc.ListStartersDocument, { first: PAGE_SIZE, after })).starters),
    getStarter: async (id: string) => (await api.request(Doc.GetStarterDocument, { id })).starter,

    listTemplates: async () => allNodes(async (after) => (await api.request(Doc.ListTemplatesDocument, { first: PAGE_SIZE, after })).templates),
    getTemplate,
    /** A template version (the latest when `version` is omitted). */
    getTemplateVersion: async (ref: string, version?: number) =>
      (await api.request(Doc.GetTemplateVersionDocument, { ...idOrName("Template", ref), version })).templateVersion,
    createTemplate: async (input: Record<string, unknown>) =>
      (await api.request(Doc.CreateTemplateDocument, { input: input as Doc.CreateTemplateInput })).createTemplate.template,
    createTemplateFromStarter: async (input: Doc.CreateTemplateFromStarterInput) =>
      (await api.request(Doc.CreateTemplateFromStarterDocument, { input })).createTemplateFromStarter.template,
    /** Updates a template named by name or id. */
    updateTemplate: async (ref: string, fields: Record<string, unknown>) => {
      const { id } = await getTemplate(ref);
      return (await api.request(Doc.UpdateTemplateDocument, { input: { ...fields, id } as Doc.UpdateTemplateInput })).updateTemplate.template;
    },
    deleteTemplate: async (ref: string) => {
      const { id } = await getTemplate(ref);
      return (await api.request(Doc.DeleteTemplateDocument, { id })).deleteTemplate.template;
    },
    validateTemplate: async (draft: Doc.ValidateTemplateQueryVariables) => (await api.request(Doc.ValidateTemplateDocument, draft)).validateTemplate,

    listEvaluators: async (options: { template?: string } = {}) => {
      const templateId = options.template ? (await getTemplate(options.template)).id : undefined;
      return allNodes(async (after) => (await api.request(Doc.ListEvaluatorsDocument, { templateId, first: PAGE_SIZE, after })).evaluators);
    },
    getEvaluator,
    createEvaluator: async (input: Record<string, unknown>) =>
      (await api.request(Doc.CreateEvaluatorDocument, { input: input as Doc.CreateEvaluatorInput })).createEvaluator.evaluator,
    /** Updates an evaluator named by name or id (the MCP example's `update_evaluator` by name). */
    updateEvaluator: async (ref: string, fields: Record<string, unknown>) => {
      const { id } = await getEvaluator(ref);
      return (await api.request(Doc.UpdateEvaluatorDocument, { input: { ...fields, id } as Doc.UpdateEvaluatorInput })).updateEvaluator.evaluator;
    },
    deleteEvaluator: async (ref: string) => {
      const { id } = await getEvaluator(ref);
      return (await api.request(Doc.DeleteEvaluatorDocument, { id })).deleteEvaluator.evaluator;
    },
    /** Unblocks an evaluator named by name or id (one not blocked comes back unchanged). */
    unblockEvaluator: async (ref: string) => (await api.request(Doc.UnblockEvaluatorDocument, idOrName("Evaluator", ref))).unblockEvaluator.evaluator,
    /**
     * A span's global id from what a user has: the global id, `TRACE_ID:SPAN_ID` (split at the last
     * colon, as Oodle's CLI reads span references), or the span's own id with `traceId`.
     * @throws ClientError BAD_USER_INPUT (at `field`) for anything else, NOT_FOUND for no such span.
     */
    spanGlobalId: async (ref: string, traceId?: string, field = "span"): Promise<string> => {
      let trace = traceId;
      let own = ref;
      if (trace === undefined) {
        if (idOrName("Span", ref).id) return ref;
        const colon = ref.lastIndexOf(":");
        if (colon <= 0 || colon === ref.length - 1) {
          throw new ClientError("BAD_USER_INPUT", `"${ref}" is not a span's global id: give TRACE_ID:SPAN_ID, or the span's own id with its trace id (--trace / traceId); oodle spans list shows both`, field);
        }
        trace = ref.slice(0, colon);
        own = ref.slice(colon + 1);
      }
      const spans = await api.request(Doc.TraceSpanIdsDocument, { traceId: trace }).then(
        (r) => r.trace.spans,
        (error) => {
          if ((error as { code?: string }).code === "NOT_FOUND") return [];
          throw error;
        },
      );
      const found = spans.find((s) => s.spanId === own);
      if (!found) throw new ClientError("NOT_FOUND", `no span "${own}" in trace "${trace}"${spans.length ? ` (it has ${spans.slice(0, 10).map((s) => s.spanId).join(", ")}${spans.length > 10 ? ", …" : ""})` : " (no span has that trace id)"}`, field);
      return found.id;
    },
    /** A page of the workspace's spans, newest start first (at most 100): `hasNextPage` and `endCursor` say how to get the next. */
    listSpans: async (filter: SpanFilterInput, page: { first?: number; after?: string } = {}) => {
      const r = (await api.request(Doc.ListSpansDocument, { filter: filter as Doc.SpanFilter, first: page.first, after: page.after })).spans;
      return { spans: r.edges.map((e) => e.node), hasNextPage: r.pageInfo.hasNextPage, endCursor: r.pageInfo.endCursor };
    },
    /** Why an evaluator did or did not run on a span, and its run there if any (`spanId`: a span's global id, see spanGlobalId). */
    explainMatch: async (spanId: string, evaluator: string) => {
      const { id } = await getEvaluator(evaluator);
      return (await api.request(Doc.ExplainMatchDocument, { spanId, evaluatorId: id })).explainMatch;
    },

    /** How the trace evaluators stand on one trace: state in words, schedule, current run and history. */
    traceEvaluations: async (traceId: string) => (await api.request(Doc.TraceEvaluationsDocument, { traceId })).traceEvaluations,
    /** How the session evaluators stand on one session (its session key). */
    sessionEvaluations: async (sessionId: string) => (await api.request(Doc.SessionEvaluationsDocument, { sessionId })).sessionEvaluations,

    tryCode: async (input: Record<string, unknown>) => (await api.request(Doc.TryCodeDocument, { input: input as Doc.TryCodeInput })).tryCode,

    listLibraries: async () => allNodes(async (after) => (await api.request(Doc.ListLibrariesDocument, { first: PAGE_SIZE, after })).sharedLibraries),
    /** A shared library with one version's code as `version`: `version`, else the latest. */
    getLibrary: async (name: string, version?: number) =>
      version === undefined
        ? (await api.request(Doc.GetLibraryLatestDocument, { name })).sharedLibrary
        : (await api.request(Doc.GetLibraryVersionDocument, { name, version })).sharedLibrary,
    libraryLatest: async (name: string) => (await api.request(Doc.LibraryLatestDocument, { name })).sharedLibrary.latestVersion,
    /** Every version of a library, newest first. */
    libraryVersions: async (name: string) =>
      allNodes(async (after) => (await api.request(Doc.LibraryVersionsDocument, { name, first: PAGE_SIZE, after })).sharedLibrary.versions),
    libraryDiff: async (name: string, from: number, to: number) => (await api.request(Doc.LibraryDiffDocument, { name, from, to })).sharedLibrary.diff,
    publishLibrary: async (input: Doc.PublishSharedLibraryVersionInput) => (await api.request(Doc.PublishLibraryDocument, { input })).publishSharedLibraryVersion.version,
    deprecateLibrary: async (input: Doc.DeprecateSharedLibraryInput) => (await api.request(Doc.DeprecateLibraryDocument, { input })).deprecateSharedLibrary.library,
    deleteLibrary: async (name: string) => (await api.request(Doc.DeleteLibraryDocument, { name })).deleteSharedLibrary,

    ingestSpans: async (spans: unknown[]) => (await api.request(Doc.IngestSpansDocument, { input: { spans } as Doc.IngestSpansInput })).ingestSpans,
    /** The sample document of a stored span (what an evaluator sees). */
    spanDocument: async (id: string) => (await api.request(Doc.SpanDocumentDocument, { id })).span.document,

    listDatasets: async () => allNodes(async (after) => (await api.request(Doc.ListDatasetsDocument, { first: PAGE_SIZE, after })).datasets),
    getDataset: async (ref: string) => (await api.request(Doc.GetDatasetDocument, idOrName("Dataset", ref))).dataset,
    importDataset: async (name: string, file: string, skipBadLines = false) =>
      // `file` is null in the variables: the multipart request's map puts the file there.
      (await api.upload(Doc.ImportDatasetDocument, { input: { name, file: null as unknown as File, skipBadLines } }, "input.file", file)).importDataset,

    createExperiment: async (input: Doc.CreateExperimentInput) => (await api.request(Doc.CreateExperimentDocument, { input })).createExperiment.experiment,
    getExperiment: async (id: string, withSummary = false): Promise<ExperimentRecord> => (await api.request(Doc.GetExperimentDocument, { id, withSummary })).experiment,
    listExperiments: async () => allNodes(async (after) => (await api.request(Doc.ListExperimentsDocument, { first: PAGE_SIZE, after })).experiments),
    /**
     * An experiment's global id from its id or its name (names need not be unique).
     * @throws ClientError NOT_FOUND for an unknown name, BAD_USER_INPUT (at `field`) when several have it.
     */
    experimentId: async (ref: string, field = "experiment"): Promise<string> => {
      const by = idOrName("Experiment", ref);
      if (by.id) return by.id;
      const found = (await api.request(Doc.ExperimentIdsByNameDocument, { name: by.name!, first: 10 })).experiments.edges.map((e) => e.node);
      if (found.length === 0) throw new ClientError("NOT_FOUND", `no experiment is named "${ref}" (give its name or id: oodle experiments list)`, field);
      if (found.length > 1) throw new ClientError("BAD_USER_INPUT", `${found.length === 10 ? "10 or more" : found.length} experiments are named "${ref}": give an id (${found.map((e) => `${e.id} of ${e.createdAt}`).join(", ")})`, field);
      return found[0]!.id;
    },
    compareExperiments: async (baseId: string, candidateId: string, limit = 20) =>
      (await api.request(Doc.CompareExperimentsDocument, { baseId, candidateId, limit })).compareExperiments,

    estimateBackfill: async (input: Record<string, unknown>) => (await api.request(Doc.EstimateBackfillDocument, { input: input as Doc.BackfillInput })).estimateBackfill,
    createBackfill: async (input: Record<string, unknown>) => {
      const { backfill, estimate } = (await api.request(Doc.CreateBackfillDocument, { input: input as Doc.CreateBackfillInput })).createBackfill;
      // The payload's estimate is nullable in the schema; createBackfill always answers it.
      if (!estimate) throw new ApiError("INTERNAL", "createBackfill answered without its estimate");
      return { backfill, estimate };
    },
    getBackfill: async (id: string, withSummary = false): Promise<BackfillRecord> => (await api.request(Doc.GetBackfillDocument, { id, withSummary })).backfill,
    /** Every backfill of the workspace (newest first), and how many are active of the most allowed. */
    listBackfills: async (options: { status?: Doc.BackfillStatus; evaluatorId?: string } = {}) => {
      let limits = { active: 0, maxConcurrent: 0 };
      const backfills = await allNodes(async (after) => {
        const r = await api.request(Doc.ListBackfillsDocument, { status: options.status, evaluatorId: options.evaluatorId, first: PAGE_SIZE, after });
        limits = r.backfillLimits;
        return r.backfills;
      });
      return { backfills, ...limits };
    },
    cancelBackfill: async (id: string) => (await api.request(Doc.CancelBackfillDocument, { id })).cancelBackfill.backfill,
  };
}

/** The operations object. */
export type Operations = ReturnType<typeof createOperations>;
