import type { DatasetItem } from "../../generated/prisma/client.js";
import { createHash } from "node:crypto";
import type { ItemError, Score } from "../../execution/index.js";
import { BadUserInputError, NotFoundError, RateLimitedError, type InputIssue } from "../../lib/errors.js";
import { parseIssues } from "../../lib/validation.js";
import { spanToDocument, type SampleDocument } from "../spans/document.js";
import { MAX_SPAN_BYTES, normaliseSpan } from "../spans/schemas.js";
import type { SpanService } from "../spans/service.js";
import type { EvaluationCore } from "../evaluation/evaluate-batch.js";
import type { EvaluationSubject, RunnableVersion } from "../evaluation/subject.js";
import { DEFAULT_KIND, JUDGE_KIND } from "../evaluators/kinds.js";
import { judgeOf, judgeSettingIssues, parseJudge } from "../judges/definition.js";
import type { RunUsage } from "../evaluation/judge-executor.js";
import { checkSource, inspectSource, type SourceInspector } from "../templates/inspect-source.js";
import type { TemplateService } from "../templates/service.js";
import { validateParamSpecs, type ParamSpec } from "../templates/settings.js";
import { findStarter, starterNotFound } from "../templates/starters/index.js";
import { specsOf } from "../templates/store.js";
import { isUuid } from "../../lib/uuid.js";
import { numericValueOf, outputWasTruncated } from "../evaluation/record.js";
import type { PrismaClient } from "../../lib/prisma.js";
import { itemColumnsOf } from "../datasets/item-record.js";
import { itemToDocument, type DocumentItem } from "../experiments/document.js";
import { itemDocumentFor } from "../experiments/group-document.js";
import type { GroupTargetType } from "../../lib/closed-lists.js";
import { resolveParams, validateValues } from "../templates/values.js";
import type { Principal } from "../../lib/principal.js";
import { memoryConcurrencyGate, type ConcurrencyGate, type Leave } from "./concurrency.js";
import { checkGroupSettings, resolveGroupSettings, type GroupSettings } from "../evaluators/group-settings.js";
import { GroupSettingError } from "../evaluators/group-completion.js";
import { storedSessionDocument, storedTraceDocument } from "../groups/stored.js";
import { libraryPinsSchema, MAX_DOCUMENT_BYTES, sampleDocumentSchema, tryCodeInputSchema, type TryCodeInput } from "./schemas.js";

/** A score of a draft run as the evaluator returned it, with its number (a boolean as 1/0; null otherwise) as a stored score has. */
export type TryCodeScore = Score & { numericValue: number | null };

/** What a draft run returns (nothing is stored). */
export interface TryCodeResult {
  outcome: string;
  scores: TryCodeScore[];
  stdout: string;
  stderr: string;
  error: ItemError | null;
  durationMs: number;
  /** ctx.params as the run saw them. */
  params: Record<string, unknown>;
  /** The template version run (templateId only). */
  templateVersion: number | null;
  /** Shared-library versions used. */
  libraryVersions: Record<string, number>;
  /**
   * The literal ctx.score reads that found no score in the sample, so ctx.score returned its
   * default (on a stored span: the scores those evaluators have there; else `document.scores`).
   */
  scoreFallbacks: ScoreFallback[];
  /** The code printed more than the output cap: output cut with a marker, scores kept. */
  outputTruncated: boolean;
  /** A judge's model call (model, tokens, cost, cached); null for code. */
  usage: RunUsage | null;
}

/** A ctx.score read that found nothing: the evaluator, the score name (null: its first score) and the line. */
export interface ScoreFallback {
  evaluator: string;
  score: string | null;
  line: number;
}

/** A literal ctx.score call found in the code. */
type ScoreReadCall = ScoreFallback;

/** The reads of `calls` that `scores` (evaluator name → score name → value) does not answer. */
export function scoreFallbacks(calls: readonly ScoreReadCall[], scores: Record<string, Record<string, unknown>> | undefined): ScoreFallback[] {
  return calls.filter((c) => {
    const of = scores?.[c.evaluator];
    if (!of || Object.keys(of).length === 0) return true;
    const value = c.score === null ? Object.values(of)[0] : of[c.score];
    return value === undefined || value === null;
  });
}

/** Keys only an items.jsonl line has (not the sample document): such a document is mapped as dataset import maps it. */
const ITEM_ONLY_KEYS = ["id", "context", "tool_calls", "expected_tool_calls"] as const;

/** The code and settings a draft run uses, from one of the three ways to name them. */
interface Subject {
  version: RunnableVersion;
  specs: ParamSpec[];
  imports?: string[];
  templateVersion: number | null;
  /** The literal ctx.score calls of the code (null: not inspected yet). */
  scoreCalls?: ScoreReadCall[];
  /** The saved template's limits (the draft's and a starter's: none). */
  templateLimits?: unknown;
  /** A judge (a draft judge or an llm template): run by the judge executor against a connection. */
  isJudge?: boolean;
}

function given(value: unknown): boolean {
  return value !== undefined && value !== null;
}

function draftId(kind: string, source: string): string {
  return `${kind}:${createHash("sha256").update(source).digest("hex").slice(0, 32)}`;
}

/**
 * try_code: runs code on one sample synchronously, through the production executor and runner
 * pool with the same ctx, and stores nothing. The code and settings come from a draft
 * (`sourceCode` + `paramSpecs`), a starter (`starterId`) or a saved template (`templateId`,
 * optionally at a version); values are checked against those settings as an evaluator save
 * checks them, and absent values take the defaults.
 */
export function createTryCodeService(deps: {
  /** The evaluation core (the only way to the sandbox). */
  core: EvaluationCore;
  templates: Pick<TemplateService, "findVersion">;
  spans: Pick<SpanService, "documentOf">;
  /** For the scores stored on a span and for stored dataset items (absent: neither is read). */
  prisma?: PrismaClient;
  inspectSource?: SourceInspector;
  /**
   * The cap on tryCode runs in flight per workspace ({@link DEFAULT_TRY_CODE_CONCURRENCY} unless configured); the app
   * gives the Redis one, shared by every API process. Default: this process's own count.
   */
  concurrency?: ConcurrencyGate;
  /** The gate's limit, for messages (config TRY_CODE_CONCURRENCY_PER_WORKSPACE; default {@link DEFAULT_TRY_CODE_CONCURRENCY}). */
  concurrencyLimit?: number;
  /** How long a call over the limit waits for a place before it is refused (config TRY_CODE_WAIT_MS; default {@link DEFAULT_TRY_CODE_WAIT_MS}). */
  waitMs?: number;
}) {
  const inspector = deps.inspectSource ?? inspectSource;

  async function subjectOf(principal: Principal, input: TryCodeInput, issues: InputIssue[]): Promise<Subject | null> {
    const ways = [given(input.sourceCode), given(input.judge), given(input.starterId), given(input.templateId)].filter(Boolean).length;
    if (ways !== 1) {
      issues.push({ path: "sourceCode", message: "give exactly one of sourceCode (with paramSpecs), judge (with paramSpecs), starterId or templateId" });
      return null;
    }
    if (given(input.judge)) {
      const specs = validateParamSpecs(input.paramSpecs, "paramSpecs");
      issues.push(...specs.issues, ...judgeSettingIssues(specs.specs).map((i) => ({ ...i, path: i.path.replace(/^params/, "paramSpecs") })));
      if (given(input.libraryPins)) issues.push({ path: "libraryPins", message: "a judge has no code: it imports no library" });
      const { judge, issues: judgeIssues } = parseJudge(input.judge, specs.specs.map((spec) => spec.name));
      issues.push(...judgeIssues);
      if (!judge) return null;
      return { version: { id: draftId("judge", JSON.stringify(judge)), sourceCode: "", libraryPins: {}, judge }, specs: specs.specs, templateVersion: null, scoreCalls: [], isJudge: true };
    }
    if (!given(input.sourceCode)) {
      if (given(input.paramSpecs)) issues.push({ path: "paramSpecs", message: "only with sourceCode or judge: a starter or a template brings its own settings" });
      if (given(input.libraryPins)) issues.push({ path: "libraryPins", message: "only with sourceCode: a template brings its own pins" });
    }
    if (given(input.templateVersion) && !given(input.templateId)) issues.push({ path: "templateVersion", message: "only with templateId" });
    if (given(input.sourceCode)) {
      const source = input.sourceCode!;
      const specs = validateParamSpecs(input.paramSpecs, "paramSpecs");
      issues.push(...specs.issues);
      const pins = given(input.libraryPins) ? parseIssues(libraryPinsSchema, input.libraryPins, "libraryPins") : { data: {}, issues: [] };
      issues.push(...pins.issues);
      const checked = await checkSource(source, inspector, "sourceCode", principal.workspaceId);
      issues.push(...checked.issues);
      if (!checked.inspection) return null;
      return {
        version: { id: draftId("draft", source), sourceCode: source, libraryPins: pins.data ?? {} },
        specs: specs.specs,
        imports: checked.inspection.sharedLibraries,
        templateVersion: null,
        scoreCalls: (checked.inspection as { scoreReadCalls?: ScoreReadCall[] }).scoreReadCalls ?? [],
      };
    }
    if (given(input.starterId)) {
      const starter = findStarter(input.starterId!);
      if (!starter) throw starterNotFound(input.starterId!);
      if (starter.judge) {
        const { judge, issues: judgeIssues } = parseJudge(starter.judge, starter.params.map((spec) => spec.name));
        issues.push(...judgeIssues);
        if (!judge) return null;
        return { version: { id: draftId(`starter-${starter.id}`, JSON.stringify(judge)), sourceCode: "", libraryPins: {}, judge }, specs: starter.params, templateVersion: null, scoreCalls: [], isJudge: true };
      }
      return { version: { id: draftId(`starter-${starter.id}`, starter.sourceCode), sourceCode: starter.sourceCode, libraryPins: {} }, specs: starter.params, imports: [], templateVersion: null };
    }
    const version = await deps.templates.findVersion(principal.workspaceId, input.templateId!, input.templateVersion ?? undefined);
    if (!version) throw new NotFoundError("template version", `${input.templateId}@${input.templateVersion ?? "latest"}`);
    return { version, specs: specsOf(version), templateVersion: version.version, templateLimits: version.template.limits, isJudge: judgeOf(version) !== null, ...(judgeOf(version) ? { scoreCalls: [] } : {}) };
  }

  async function sampleOf(principal: Principal, input: TryCodeInput, issues: InputIssue[]): Promise<SampleDocument | null> {
    const ways = [given(input.spanId), given(input.span), given(input.document), given(input.datasetItemId), given(input.traceId), given(input.sessionId)].filter(Boolean).length;
    if (ways !== 1) {
      issues.push({
        path: "spanId",
        message:
          "give exactly one sample: spanId (a stored span), span (an inline span), document (an inline dataset item), datasetItemId (a stored dataset item), traceId (a stored trace) or sessionId (a stored session)",
      });
      return null;
    }
    const itemTarget = input.target === "trace" || input.target === "session" ? input.target : null;
    if (given(input.target) && input.target !== "span" && !given(input.document) && !given(input.datasetItemId) && !given(input.traceId) && !given(input.sessionId)) {
      issues.push({ path: "target", message: "only with document or datasetItemId (a stored trace or session is given by traceId or sessionId)" });
      return null;
    }
    if (given(input.groupSettings) && !given(input.traceId) && !given(input.sessionId) && !itemTarget) {
      issues.push({ path: "groupSettings", message: "only with traceId or sessionId, or target trace or session" });
      return null;
    }
    if (given(input.traceId) || given(input.sessionId)) return groupSampleOf(principal, input, issues);
    if (itemTarget) return itemGroupSampleOf(principal, input, itemTarget, issues);
    if (given(input.spanId)) return deps.spans.documentOf(principal.workspaceId, input.spanId!);
    if (given(input.datasetItemId)) return itemToDocument(await storedItem(principal, input.datasetItemId!)) as SampleDocument;
    const raw = given(input.span) ? input.span : input.document;
    const bytes = Buffer.byteLength(JSON.stringify(raw), "utf8");
    if (bytes > Math.max(MAX_SPAN_BYTES, MAX_DOCUMENT_BYTES)) {
      issues.push({ path: given(input.span) ? "span" : "document", message: `must be at most ${MAX_DOCUMENT_BYTES} bytes of JSON (got ${bytes})` });
      return null;
    }
    if (given(input.span)) {
      // A draft's inline span needs no ids: nothing is stored.
      const result = normaliseSpan({ traceId: "try-code", spanId: "try-code", name: "try-code", ...(input.span as object) }, new Date());
      if ("issues" in result) {
        issues.push(...result.issues.map((i) => ({ path: i.path ? `span.${i.path}` : "span", message: i.message })));
        return null;
      }
      return spanToDocument(result.span, [result.span]);
    }
    const raw_ = input.document;
    if (typeof raw_ === "object" && raw_ !== null && !Array.isArray(raw_) && ITEM_ONLY_KEYS.some((k) => Object.hasOwn(raw_, k))) {
      // A line of items.jsonl: the same mapping as dataset import, then the experiment's sample document.
      const line = itemLineOf(raw_ as Record<string, unknown>, issues);
      return line ? (itemToDocument(line.item, line.scores) as SampleDocument) : null;
    }
    const parsed = parseIssues(sampleDocumentSchema, input.document, "document");
    issues.push(...parsed.issues);
    return parsed.data as SampleDocument | null;
  }

  /** The group settings asked in `groupSettings` for `target` (else the defaults); null with an issue when refused. */
  function groupSettingsOf(target: GroupTargetType, input: TryCodeInput, issues: InputIssue[]): GroupSettings | null {
    try {
      return resolveGroupSettings(target, checkGroupSettings(target, input.groupSettings ?? {}));
    } catch (error) {
      if (!(error instanceof GroupSettingError)) throw error;
      issues.push({ path: `groupSettings.${error.field}`, message: error.message });
      return null;
    }
  }

  /**
   * A dataset item (stored, or inline as a line of items.jsonl) as a trace or session evaluator sees
   * it in an experiment (experiments/group-document.ts), with the caps asked in `groupSettings`.
   * An inline item's session id (when no span carries a session key) is its `id`, else "try-code".
   */
  async function itemGroupSampleOf(principal: Principal, input: TryCodeInput, target: GroupTargetType, issues: InputIssue[]): Promise<SampleDocument | null> {
    const settings = groupSettingsOf(target, input, issues);
    if (!settings) return null;
    if (given(input.datasetItemId)) return itemDocumentFor(target, settings, await storedItem(principal, input.datasetItemId!)) as SampleDocument;
    const raw = input.document;
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      issues.push({ path: "document", message: "must be an object (a line of items.jsonl)" });
      return null;
    }
    const bytes = Buffer.byteLength(JSON.stringify(raw), "utf8");
    if (bytes > MAX_DOCUMENT_BYTES) {
      issues.push({ path: "document", message: `must be at most ${MAX_DOCUMENT_BYTES} bytes of JSON (got ${bytes})` });
      return null;
    }
    const line = itemLineOf(raw as Record<string, unknown>, issues);
    return line ? (itemDocumentFor(target, settings, line.item, line.scores) as SampleDocument) : null;
  }

  /** A stored dataset item of the caller's workspace. @throws NotFoundError. */
  async function storedItem(principal: Principal, id: string): Promise<DatasetItem> {
    const item = isUuid(id) && deps.prisma ? await deps.prisma.datasetItem.findFirst({ where: { id, workspaceId: principal.workspaceId } }) : null;
    if (!item) throw new NotFoundError("dataset item", id);
    return item;
  }

  /**
   * An inline items.jsonl line mapped as dataset import maps it, with its `scores` (checked as a
   * sample document's) and an id (its own, else "try-code"); null with issues at `document.<path>`.
   */
  function itemLineOf(raw: Record<string, unknown>, issues: InputIssue[]): { item: DocumentItem & { id: string }; scores: Record<string, Record<string, unknown>> | undefined } | null {
    const { scores, ...line } = raw;
    const mapped = itemColumnsOf(line);
    if (mapped.issues) {
      issues.push(...mapped.issues.map((i) => ({ path: i.path ? `document.${i.path}` : "document", message: i.message })));
      return null;
    }
    let checked: Record<string, Record<string, unknown>> | undefined;
    if (scores !== undefined) {
      const parsed = parseIssues(sampleDocumentSchema, { scores }, "document");
      issues.push(...parsed.issues);
      checked = parsed.data?.scores as Record<string, Record<string, unknown>> | undefined;
    }
    const id = typeof line.id === "string" && line.id !== "" ? line.id : "try-code";
    return { item: { ...(mapped.columns as DocumentItem), id }, scores: checked };
  }

  /**
   * The document of a stored trace or session, built as the live group processor builds it
   * (groups/stored.ts) with the caps asked in `groupSettings` (else the defaults).
   * @throws NotFoundError when the workspace holds no span of it.
   */
  async function groupSampleOf(principal: Principal, input: TryCodeInput, issues: InputIssue[]): Promise<SampleDocument | null> {
    const target = given(input.traceId) ? "trace" : "session";
    if (given(input.target) && input.target !== target) {
      issues.push({ path: "target", message: `a ${given(input.traceId) ? "traceId" : "sessionId"} sample is a ${target}: target must be ${target} or absent` });
      return null;
    }
    const settings = groupSettingsOf(target, input, issues);
    if (!settings) return null;
    if (!deps.prisma) throw new Error("tryCode on a stored trace or session needs the database");
    const document =
      target === "trace"
        ? await storedTraceDocument(deps.prisma, principal.workspaceId, input.traceId!, settings)
        : await storedSessionDocument(deps.prisma, principal.workspaceId, input.sessionId!, settings, settings.sessionKeyAttributes);
    if (!document) throw new NotFoundError(target, target === "trace" ? input.traceId! : input.sessionId!);
    return document;
  }

  /** tryCode runs in flight per workspace (one workspace cannot fill the sandbox's slots with drafts). */
  const limit = deps.concurrencyLimit ?? DEFAULT_TRY_CODE_CONCURRENCY;
  const gate = deps.concurrency ?? memoryConcurrencyGate(limit);
  const waitMs = deps.waitMs ?? DEFAULT_TRY_CODE_WAIT_MS;

  /** The literal ctx.score calls of the code run (inspected once here for a starter or template). */
  async function scoreCallsOf(subject: Subject, workspaceId: string): Promise<ScoreReadCall[]> {
    if (subject.scoreCalls) return subject.scoreCalls;
    const inspection = await inspector(subject.version.sourceCode, workspaceId);
    return inspection.ok ? ((inspection as { scoreReadCalls?: ScoreReadCall[] }).scoreReadCalls ?? []) : [];
  }

  /** On a stored span: the scores the evaluators the code reads have there (as the live run reads them). */
  async function storedScores(workspaceId: string, spanId: string, calls: readonly ScoreReadCall[]): Promise<Record<string, Record<string, unknown>>> {
    const names = [...new Set(calls.map((c) => c.evaluator))];
    if (!deps.prisma || names.length === 0) return {};
    const runs = await deps.prisma.run.findMany({
      where: { spanId, workspaceId, evaluator: { name: { in: names } } },
      select: { evaluator: { select: { name: true } }, scores: { orderBy: { position: "asc" }, select: { name: true, value: true } } },
      orderBy: { createdAt: "asc" },
    });
    return Object.fromEntries(runs.map((r) => [r.evaluator.name, Object.fromEntries(r.scores.map((s) => [s.name, s.value]))]));
  }

  return {
    /**
     * Runs the code on the sample and returns its outcome, scores, output, error and duration.
     * @throws BadUserInputError listing every problem (which code, settings, values, sample; a
     *   syntax error with its line and column); NotFoundError for an unknown starter, template,
     *   template version or span; RateLimitedError (LIMIT_EXCEEDED, HTTP 429, retryAfterSeconds)
     *   when the workspace still has its limit of runs in flight after waiting `waitMs` for a place.
     */
    async tryCode(principal: Principal, raw: unknown): Promise<TryCodeResult> {
      const { data: input, issues } = parseIssues(tryCodeInputSchema, raw ?? {});
      if (!input) throw new BadUserInputError(issues);
      const leave = await enterWaiting(gate, principal.workspaceId, waitMs);
      if (!leave) {
        const retry = Math.max(1, Math.ceil(waitMs / 1000));
        throw new RateLimitedError(`at most ${limit} tryCode run(s) at once per workspace (TRY_CODE_CONCURRENCY_PER_WORKSPACE); none finished within ${waitMs} ms; retry in ${retry} s`, retry);
      }
      try {
        return await tryCodeNow(principal, input);
      } finally {
        await leave();
      }
    },
  };

  /** One tryCode run (see the service's `tryCode`). */
  async function tryCodeNow(principal: Principal, input: TryCodeInput): Promise<TryCodeResult> {
      const issues: InputIssue[] = [];
      const subject = await subjectOf(principal, input, issues);
      const document = await sampleOf(principal, input, issues);
      const values = subject ? validateValues(subject.specs, input.params) : { values: {}, issues: [] };
      issues.push(...values.issues);
      if (subject?.isJudge && !given(input.connectionId)) issues.push({ path: "connectionId", message: "is required to try a judge: the connection whose model it calls" });
      if (subject && !subject.isJudge && given(input.connectionId)) issues.push({ path: "connectionId", message: "only for a judge: code runs in the sandbox and calls no model" });
      if (issues.length || !subject || !document) throw new BadUserInputError(issues);
      if (subject.isJudge && deps.prisma && !(isUuid(input.connectionId!) && (await deps.prisma.connection.findFirst({ where: { id: input.connectionId!, workspaceId: principal.workspaceId }, select: { id: true } })))) {
        throw new NotFoundError("connection", input.connectionId!);
      }
      const params = resolveParams(subject.specs, values.values);
      const calls = await scoreCallsOf(subject, principal.workspaceId);
      if (given(input.spanId) && calls.length) {
        (document as Record<string, unknown>).scores = await storedScores(principal.workspaceId, input.spanId!, calls);
      }
      // Drafts share runners only with the same API key's drafts, never with live evaluators; the
      // limits are those an evaluator of this template would run with (the input's own win, key by
      // key). A draft declares no dependencies: ctx.score reads any score given in the sample, else its default.
      const subject_: EvaluationSubject = {
        workspaceId: principal.workspaceId, evaluatorId: null, kind: subject.isJudge ? JUDGE_KIND : DEFAULT_KIND, version: subject.version, connectionId: input.connectionId ?? null, ...(subject.imports ? { imports: subject.imports } : {}), params, isolation: "warm",
        limits: { own: input.limits, template: subject.templateLimits }, dependencies: null, trustDomain: `tryCode:${principal.apiKeyId ?? "local-admin"}`,
      };
      const [answer] = await deps.core.evaluateBatch(subject_, [{ target: null, inputs: new Map(), lastAttempt: true, document: () => document as Record<string, unknown> }]);
      // On its only (last) attempt and with no gate, the core always gives a run with a result.
      if (answer?.status !== "done" || !answer.run.result) throw new Error("tryCode: the core left the draft without a result");
      const { result, libraryVersions } = answer.run;
      return {
        usage: answer.run.usage ?? null,
        outcome: result.outcome,
        scores: result.scores.map((score) => ({ ...score, numericValue: numericValueOf(score.value) })),
        stdout: result.stdout,
        stderr: result.stderr,
        error: result.error ?? null,
        durationMs: result.durationMs,
        params,
        templateVersion: subject.templateVersion,
        libraryVersions,
        outputTruncated: outputWasTruncated(result),
        scoreFallbacks: scoreFallbacks(calls, (document as { scores?: Record<string, Record<string, unknown>> }).scores),
      };
  }
}

/** tryCode runs one workspace may have in flight at once by default (config TRY_CODE_CONCURRENCY_PER_WORKSPACE, at most 16). */
export const DEFAULT_TRY_CODE_CONCURRENCY = 1;
/** How long a call over the limit waits for a place by default (config TRY_CODE_WAIT_MS), in ms. */
export const DEFAULT_TRY_CODE_WAIT_MS = 5_000;

/** Enters the gate, trying again every 50 ms (doubling to 400 ms) until `waitMs` has passed. @returns null when no place came free in time. */
export async function enterWaiting(gate: ConcurrencyGate, workspaceId: string, waitMs: number): Promise<Leave | null> {
  const deadline = Date.now() + waitMs;
  let pause = 50;
  for (;;) {
    const leave = await gate.enter(workspaceId);
    if (leave || Date.now() >= deadline) return leave;
    await new Promise((resolve) => setTimeout(resolve, Math.min(pause, Math.max(0, deadline - Date.now()))));
    pause = Math.min(pause * 2, 400);
  }
}

/** The try_code service. */
export type TryCodeService = ReturnType<typeof createTryCodeService>;
