import { limitFlags } from "../limit-flags.js";
import { existsSync } from "node:fs";
import type { Command } from "commander";
import { action, type CommandContext } from "../context.js";
import { CliError, EXIT } from "../exit-codes.js";
import { jsonOrFile, parseDataFile, parseJsonFlag, readText } from "../inputs.js";
import { ClientError } from "../../api-client/http.js";
import type { TryCodeRecord } from "../../api-client/operations.js";
import { cell, emit, table } from "../output.js";

/** The sample flags of `try` and `templates test`. */
export interface SampleFlags {
  span?: string;
  document?: string;
  scores?: string;
  trace?: string;
  session?: string;
  as?: string;
}

/** Adds --span, --document, --trace, --session and --scores. */
export function sampleOptions(command: Command): Command {
  return command
    .option("--span <file|id>", "a span: a JSON file in the ingestSpans shape, or a stored span (its global id, or TRACE_ID:SPAN_ID)")
    .option("--document <file>", "a sample document (JSON: input, output, attributes, …), e.g. a dataset item's")
    .option("--trace <trace id>", "a stored trace, as a trace evaluator sees it (every span in ctx.trace.spans)")
    .option("--session <session key>", "a stored session, as a session evaluator sees it (its traces in ctx.session, every turn in text.turns(ctx))")
    .option("--as <target>", "with --document (a line of items.jsonl): the item as a trace or session evaluator sees it in an experiment (trace, session)")
    .option("--scores <json|@file>", 'upstream scores by evaluator name, e.g. \'{"JSON check": {"is_json": true}}\'; only with --document FILE or --span <stored span> (an inline span file has none)');
}

const SCORES_NEED = "needs a sample that carries scores: --document FILE, or --span with a stored span (its global id or TRACE_ID:SPAN_ID)";

/**
 * The sample of a tryCode input from the flags: an inline span, a stored span, or a document.
 * `--scores` goes into the sample document, so it needs `--document` or a stored span (whose
 * document is fetched and given the scores).
 * @throws CliError BAD_USER_INPUT naming the flag: --span with --document, --scores without one
 *   of those (or with an inline span file), a --span that is neither a file nor a stored span.
 */
export async function buildSample(ctx: CommandContext, flags: SampleFlags): Promise<Record<string, unknown>> {
  const given = (["span", "document", "trace", "session"] as const).filter((f) => flags[f]);
  if (given.length > 1) throw new CliError("BAD_USER_INPUT", `give one sample: ${given.map((f) => `--${f}`).join(" or ")}, not ${given.length === 2 ? "both" : "several"}`, `--${given[1]}`);
  if (flags.trace || flags.session) {
    if (flags.scores) throw new CliError("BAD_USER_INPUT", `${SCORES_NEED}; a stored ${flags.trace ? "trace" : "session"} carries its spans' scores itself`, "--scores");
    return flags.trace ? { traceId: flags.trace } : { sessionId: flags.session };
  }
  const scores = flags.scores ? jsonOrFile(flags.scores, "--scores") : undefined;
  if (flags.as !== undefined && !flags.document) throw new CliError("BAD_USER_INPUT", "--as needs --document FILE (a stored trace or session is --trace or --session)", "--as");
  if (flags.document) {
    const document = parseDataFile(flags.document, "--document") as Record<string, unknown>;
    return { document: scores === undefined ? document : { ...document, scores }, ...(flags.as !== undefined ? { target: flags.as } : {}) };
  }
  if (flags.span && existsSync(flags.span)) {
    if (scores !== undefined) throw new CliError("BAD_USER_INPUT", `${SCORES_NEED}; ${flags.span} is an inline span file, which has no scores`, "--scores");
    return { span: parseJsonFlag(readText(flags.span, "--span"), "--span") };
  }
  if (flags.span) {
    const spanId = await ctx.ops.spanGlobalId(flags.span, undefined, "--span").catch((error: unknown) => {
      if (error instanceof ClientError && error.code === "BAD_USER_INPUT") {
        throw new CliError("BAD_USER_INPUT", `"${flags.span}" is neither a file nor a stored span (give a span file, a span's global id or TRACE_ID:SPAN_ID; oodle spans list shows them)`, "--span");
      }
      throw error;
    });
    if (scores === undefined) return { spanId };
    const document = (await ctx.ops.spanDocument(spanId)) as Record<string, unknown>;
    return { document: { ...document, scores } };
  }
  if (scores !== undefined) throw new CliError("BAD_USER_INPUT", SCORES_NEED, "--scores");
  return {};
}

/** Prints a tryCode result; exit 6 when the run did not end ok. */
export function printTryResult(ctx: CommandContext, result: TryCodeRecord): number {
  emit(ctx.output, result, () => {
    const lines = [`outcome: ${result.outcome} (${result.durationMs.toFixed(1)} ms)`, `ctx.params: ${JSON.stringify(result.params)}`];
    if (result.scores.length) lines.push(table(["score", "value", "type", "comment"], result.scores.map((s) => [s.name, cell(s.value), s.dataType, s.comment])));
    if (result.error) lines.push(`error: ${result.error.type}: ${result.error.message}`, ...(result.error.traceback ? [result.error.traceback] : []));
    if (result.usage) lines.push(`usage: ${usageText(result.usage)}`);
    for (const f of result.scoreFallbacks ?? []) {
      lines.push(`note: line ${f.line}: ctx.score("${f.evaluator}"${f.score ? `, "${f.score}"` : ""}) found no score in the sample and returned its default`);
    }
    if (result.stdout) lines.push(`stdout:${result.outputTruncated ? " (truncated at the output cap)" : ""}\n${result.stdout}`);
    return lines.join("\n");
  });
  return result.outcome === "ok" ? EXIT.ok : EXIT.evaluationFailed;
}

/**
 * A judge call's usage for people (Run.usage, tryCode's `usage`, docs/judges.md § Run.usage):
 * `gpt-4o-mini, 120 in / 30 out tokens, $0.000036 (builtin price), 412 ms`; a cache hit says so.
 */
export function usageText(u: { model: string; inputTokens: number; outputTokens: number; costUsd?: number | null; priceSource?: string | null; cached: boolean; providerMs: number }): string {
  if (u.cached) return `${u.model}, served from the result cache (no call, $0)`;
  const cost = typeof u.costUsd === "number" ? `$${u.costUsd} (${u.priceSource} price)` : "no price for this model";
  return `${u.model}, ${u.inputTokens} in / ${u.outputTokens} out tokens, ${cost}, ${u.providerMs} ms`;
}

/** `oodle genai try`. */
export function tryCommand(genai: Command): void {
  sampleOptions(
    genai
      .command("try [file]")
      .description("runs code on one sample through the server's sandbox and prints its scores; stores nothing")
      .option("--param-specs <json|@file>", "the draft's settings (a params list), with FILE")
      .option("--params <json|@file>", "setting values for the run (absent ones take their defaults)")
      .option("--starter <id>", "run a built-in starter instead of FILE")
      .option("--template <name>", "run a saved template instead of FILE")
      .option("--template-version <n>", "with --template: that version")
      .option("--connection <name>", "with an llm --template: the connection its judge calls (it makes one real call)")
      .option("--cpu-time <seconds>", "run with this CPU time per item (as an evaluator may ask; default: the template's, else 5)")
      .option("--wall-time <seconds>", "run with this wall-clock time per item (default: the template's, else 10)")
      .option("--memory <MiB>", "run with this much memory (default: the template's, else 256)"),
  )
    .addHelpText(
      "after",
      `\nExamples:\n  oodle genai try check.py --param-specs '[{"name": "at", "type": "number", "default": 0.5}]' --params '{"at": 0.7}' --span span.json\n  oodle genai try --starter keyword-check --params '{"required": ["refund"]}' --span span.json\n  oodle genai try --template "Keyword check" --span <span id>\n  oodle genai try --template "Agent trace size" --trace 4bf92f3577b34da6a3ce929d0e0e4736\n  oodle genai try turns.py --session conv-1042\n  oodle genai try turns.py --document item.json --as session`,
    )
    .action(
      action(async (ctx, file?: string) => {
        const o = ctx.options;
        const input: Record<string, unknown> = await buildSample(ctx, o as SampleFlags);
        if (file) input.sourceCode = readText(file, "file");
        if (o.paramSpecs) input.paramSpecs = jsonOrFile(o.paramSpecs, "--param-specs");
        if (o.params) input.params = jsonOrFile(o.params, "--params");
        if (o.starter) input.starterId = o.starter;
        if (o.template) input.templateId = (await ctx.ops.getTemplate(o.template)).id;
        if (o.templateVersion) input.templateVersion = Number(o.templateVersion);
        if (o.connection) input.connectionName = o.connection;
        const limits = limitFlags(o);
        if (Object.keys(limits).length) input.limits = limits;
        return printTryResult(ctx, await ctx.ops.tryCode(input));
      }, { sourceCode: "FILE", spanId: "--span", span: "--span", traceId: "--trace", sessionId: "--session", groupSettings: "--trace", target: "--as" }),
    );
}
