import { evaluatorLimitsSchema } from "../../execution/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { Operations, SpanFilterInput, TryCodeRecord } from "../../api-client/operations.js";
import { explanationLine } from "../../cli/commands/evaluators.js";
import { usageText } from "../../cli/commands/try.js";
import { groupEvaluationsText } from "../../cli/commands/groups.js";
import { parseTimeFlag } from "../../cli/time.js";
import { libraryPinsSchema, tryCodeInputSchema } from "../../modules/try-code/schemas.js";
import { sourceCodeSchema } from "../../modules/templates/schemas.js";
import { judgeDefinitionSchema } from "../../modules/judges/definition.js";
import { badArguments, toolResult } from "../results.js";

/** The arguments of genai_evaluator_workbench (the tryCode input, plus what validate and explain_match need). */
// Strict: a misspelt argument is refused by name, as the CLI and GraphQL refuse it, never dropped.
export const workbenchInput = z.strictObject({
  action: z
    .enum(["try_code", "validate", "explain_match", "list_spans", "get_group_evaluations"])
    .describe(
      "try_code: run code on one sample and return its scores (stores nothing); validate: the save checks of settings and code without running; explain_match: why an evaluator did or did not run on a span; list_spans: stored spans (newest first) with their global ids, trace and span ids and scores; " +
        "get_group_evaluations: how each trace evaluator stands on traceId, or each session evaluator on sessionId (waiting until when, queued, ran, stale), with its current run and history.",
    ),
  sourceCode: sourceCodeSchema.describe("Draft Python defining evaluate(ctx); its settings come from paramSpecs.").optional(),
  judge: judgeDefinitionSchema
    .describe("Instead of sourceCode, an llm template's judge draft {messages, output, maxOutputTokens?, cacheTtlSeconds?} (its settings in paramSpecs): validate checks it, try_code calls its connection's model once on the sample (needs connectionName).")
    .optional(),
  connectionName: z.string().describe("try_code of a judge (judge, or templateId of an llm template): the connection it calls, by name (genai_connections list).").optional(),
  paramSpecs: z.unknown().describe("The draft's settings, a template's params list: [{name, type, label, description, default, required, options}].").optional(),
  libraryPins: libraryPinsSchema.describe("The draft's shared-library pins {library name: version}.").optional(),
  starterId: z.string().describe("Instead of sourceCode: a built-in starter (its code and settings), e.g. keyword-check.").optional(),
  templateId: z.string().describe("Instead of sourceCode: a saved template, by global id or name (its code and settings).").optional(),
  templateVersion: z.number().int().describe("With templateId: that version (default the latest).").optional(),
  limits: evaluatorLimitsSchema.describe("try_code: run with these sandbox limits {cpuTimeMs?, wallTimeMs?, memoryBytes?} (default: the template's, then the sandbox's).").optional(),
  params: z.unknown().describe("Setting values for the run {setting name: value}, checked against the settings used; absent ones take their defaults.").optional(),
  span: z.record(z.string(), z.unknown()).describe("Sample: an inline span in the ingestSpans shape, e.g. {input: [{role, content}], output}.").optional(),
  spanId: z.string().describe("A stored span (try_code's sample; explain_match's span): its global id, TRACE_ID:SPAN_ID, or its own span id with traceId.").optional(),
  traceId: z.string().describe("With spanId: the span's trace id (spanId is then the span's own id). try_code without spanId: a stored trace as the sample (as a trace evaluator sees it). list_spans: only this trace. get_group_evaluations: the trace.").optional(),
  sessionId: z.string().describe("try_code: a stored session as the sample (as a session evaluator sees it). get_group_evaluations: the session key (instead of traceId).").optional(),
  spanFilter: z
    .strictObject({
      name: z.string().describe("A glob over span names (* and ?).").optional(),
      kind: z.string().describe("chat, tool, agent, retrieval or other.").optional(),
      from: z.string().describe("Spans that started at or after (-1d, ISO 8601, epoch s/ms/µs/ns).").optional(),
      to: z.string().describe("Spans that started before.").optional(),
      evaluator: z.string().describe("Spans with a run of this evaluator (name or id).").optional(),
      outcome: z.string().describe("Spans with a run of this outcome.").optional(),
      scoreName: z.string().optional(),
      scoreValue: z.unknown().optional(),
      scoreMin: z.number().optional(),
      scoreMax: z.number().optional(),
    })
    .describe("list_spans: the spans query's filters.")
    .optional(),
  first: z.number().int().describe("list_spans: spans per page (at most 100, default 20).").optional(),
  after: z.string().describe("list_spans: the endCursor of the previous page.").optional(),
  // GraphQL tryCode's own document field: the API checks it (a sample document or an items.jsonl line), so MCP accepts exactly what GraphQL and the CLI accept.
  document: tryCodeInputSchema.shape.document.describe(
    "Sample: a sample document (input, output, expected_output, attributes, trace, scores, metadata) or a line of items.jsonl as it is (id, input, output, expected_output, context, tool_calls, expected_tool_calls, metadata, trace), mapped as dataset import maps it. Without span, spanId or document, try_code runs on an empty sample document (and says so).",
  ),
  target: tryCodeInputSchema.shape.target.describe("try_code with document: the item as a trace or session evaluator sees it in an experiment (trace, session; default span)."),
  groupSettings: tryCodeInputSchema.shape.groupSettings,
  evaluator: z.string().describe("explain_match: the evaluator, by name or global id.").optional(),
});

/** The tool's arguments. */
export type WorkbenchArgs = z.infer<typeof workbenchInput>;

function tryText(r: TryCodeRecord): string {
  const scores = r.scores.map((s) => `${s.name}=${JSON.stringify(s.value)}`).join(", ");
  return `outcome ${r.outcome}${scores ? `; scores ${scores}` : ""}; ctx.params ${JSON.stringify(r.params)}${r.error ? `; ${r.error.type}: ${r.error.message}` : ""}${r.usage ? `; usage ${usageText(r.usage)}` : ""}`;
}

/** genai_evaluator_workbench: try_code, validate and explain_match over the same GraphQL operations as the CLI. */
export const workbenchTool = {
  name: "genai_evaluator_workbench",
  description:
    "Try and check Oodle code evaluators and LLM judges without saving anything. A judge draft is judge + paramSpecs: validate checks it, try_code calls the model of connectionName once on the sample. try_code runs sourceCode + paramSpecs, a starterId or a templateId with params on an inline span, a stored spanId or a document " +
    '(e.g. {"action": "try_code", "starterId": "keyword-check", "params": {"required": ["refund"]}}); validate checks settings, code, imports and example params without running; explain_match tells why an evaluator did or did not run on a span ' +
    '(spanId: a global id, "TRACE_ID:SPAN_ID", or the span\'s own id with traceId); list_spans finds spans (filters in spanFilter) with both ids; ' +
    'get_group_evaluations says where trace and session evaluators stand on a trace or session (e.g. {"action": "get_group_evaluations", "traceId": "4bf92f35…"} or {"action": "get_group_evaluations", "sessionId": "conv-42"}).',
  inputSchema: workbenchInput,
  async run(ops: Operations, args: WorkbenchArgs): Promise<CallToolResult> {
    const raw = args as Record<string, unknown>;
    switch (args.action) {
      case "try_code": {
        const input = Object.fromEntries(
          ["sourceCode", "judge", "connectionName", "paramSpecs", "libraryPins", "starterId", "templateVersion", "params", "span", "document", "target", "groupSettings", "limits"].filter((k) => raw[k] !== undefined).map((k) => [k, raw[k]]),
        );
        if (args.spanId !== undefined) input.spanId = await ops.spanGlobalId(args.spanId, args.traceId, "spanId");
        // Without spanId, traceId or sessionId is the sample itself: the stored trace or session as its evaluator sees it.
        else if (args.traceId !== undefined) input.traceId = args.traceId;
        if (args.sessionId !== undefined) input.sessionId = args.sessionId;
        if (args.templateId) input.templateId = (await ops.getTemplate(args.templateId)).id;
        // The page's calls give no sample: then the run is on an empty sample document, as
        // `python -m oodle_eval run` without --span, and the result says so.
        const noSample = args.span === undefined && args.spanId === undefined && args.document === undefined && args.traceId === undefined && args.sessionId === undefined;
        if (noSample) input.document = {};
        const result = await ops.tryCode(input);
        return noSample
          ? toolResult({ ...result, sample: "empty" }, `${tryText(result)} (no span, spanId or document given: ran on an empty sample document)`)
          : toolResult(result, tryText(result));
      }
      case "validate": {
        // The settings and code to check: the draft's, a starter's or a saved template version's.
        let draft: { sourceCode?: string; kind?: "llm"; judge?: unknown; params?: unknown; libraryPins?: unknown };
        if (args.starterId) {
          const s = await ops.getStarter(args.starterId);
          draft = { sourceCode: s.sourceCode, params: s.params.map(({ hasDefault, ...p }) => Object.fromEntries(Object.entries(p).filter(([k, v]) => v !== null || (k === "default" && hasDefault)))) };
        } else if (args.templateId) {
          const v = await ops.getTemplateVersion(args.templateId, args.templateVersion);
          const params = v.params.map(({ hasDefault, ...p }) => Object.fromEntries(Object.entries(p).filter(([k, v]) => v !== null || (k === "default" && hasDefault))));
          // An llm template's version holds a judge, not code.
          draft = v.judge ? { kind: "llm", judge: v.judge, params } : { sourceCode: v.sourceCode, params, libraryPins: v.libraryPins };
        } else if (args.judge !== undefined) {
          if (args.sourceCode !== undefined) throw badArguments([{ path: "judge", message: "give sourceCode (a code draft) or judge (an llm draft), not both" }]);
          draft = { kind: "llm", judge: args.judge, params: args.paramSpecs };
        } else {
          if (args.sourceCode === undefined) throw badArguments([{ path: "sourceCode", message: "is required: give sourceCode (with paramSpecs), judge (an llm draft), starterId or templateId" }]);
          draft = { sourceCode: args.sourceCode, params: args.paramSpecs, libraryPins: args.libraryPins };
        }
        const result = await ops.validateTemplate({ ...draft, values: args.params });
        const text = result.valid
          ? draft.judge !== undefined
            ? "valid: the judge's messages, output definition and settings pass every save rule"
            : `valid: entry point ${result.entryPoint?.kind} ${result.entryPoint?.name}`
          : `${result.issues.length} problem(s): ${result.issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`;
        return toolResult(result, text);
      }
      case "explain_match": {
        const issues = [
          ...(args.spanId ? [] : [{ path: "spanId", message: "is required: the span" }]),
          ...(args.evaluator ? [] : [{ path: "evaluator", message: "is required: the evaluator, by name or id" }]),
        ];
        if (issues.length) throw badArguments(issues);
        const r = await ops.explainMatch(await ops.spanGlobalId(args.spanId!, args.traceId, "spanId"), args.evaluator!);
        return toolResult(r, explanationLine(r));
      }
      case "get_group_evaluations": {
        if ((args.traceId === undefined) === (args.sessionId === undefined)) throw badArguments([{ path: "traceId", message: "give exactly one of traceId (a trace) or sessionId (a session key)" }]);
        const list = args.traceId !== undefined ? await ops.traceEvaluations(args.traceId) : await ops.sessionEvaluations(args.sessionId!);
        return toolResult(list, args.traceId !== undefined ? groupEvaluationsText(list, "trace", args.traceId) : groupEvaluationsText(list, "session", args.sessionId!));
      }
      case "list_spans": {
        const { evaluator, from, to, ...rest } = args.spanFilter ?? {};
        const filter: SpanFilterInput = { ...rest, ...(args.traceId !== undefined ? { traceId: args.traceId } : {}) };
        if (from !== undefined) filter.from = parseTimeFlag(from, "spanFilter.from");
        if (to !== undefined) filter.to = parseTimeFlag(to, "spanFilter.to");
        if (evaluator !== undefined) filter.evaluatorId = (await ops.getEvaluator(evaluator)).id;
        const page = await ops.listSpans(filter, { first: args.first, after: args.after });
        const lines = page.spans.map((sp) => `${sp.id} (trace ${sp.traceId}, span ${sp.spanId}): ${sp.name}, ${sp.kind}, ${sp.startTime}`);
        return toolResult(page, [...(lines.length ? lines : ["no spans match"]), ...(page.hasNextPage ? [`more: after ${page.endCursor}`] : [])].join("\n"));
      }
    }
  },
};
