import type { Command } from "commander";
import type { GroupEvaluationRecord } from "../../api-client/operations.js";
import { action } from "../context.js";
import { cell, emit, table } from "../output.js";

/** A run's outcome and scores in one cell: `ok: coherent=true, turns=3`. */
function runCell(g: GroupEvaluationRecord): string {
  if (!g.run) return "-";
  const scores = g.run.scores.map((s) => `${s.name}=${cell(s.value)}`).join(", ");
  return `${g.run.outcome}${scores ? `: ${scores}` : ""}${g.run.documentCapped ? " (capped)" : ""}`;
}

/**
 * The evaluations of one trace or session for people: one row per evaluator (state, spans, due
 * time, current run, runs replaced), then each one's state in words.
 */
export function groupEvaluationsText(list: GroupEvaluationRecord[], what: string, key: string): string {
  if (!list.length) return `no ${what} evaluator has a schedule for ${what} "${key}" (none of its spans matched a ${what} evaluator's rule, or no span of it arrived)`;
  return [
    table(["evaluator", "state", "spans arrived", "due", "run", "replaced"], list.map((g) => [g.evaluator.name, g.state, g.spanCount, g.dueAt, runCell(g), g.history.length])),
    "",
    ...list.flatMap((g) => [
      `${g.evaluator.name}: ${g.detail}`,
      ...(g.run?.error ? [`  error: ${g.run.error.type}: ${g.run.error.message}`] : []),
      ...(g.run?.skipReason ? [`  skipped: ${g.run.skipReason}`] : []),
    ]),
  ].join("\n");
}

/** `oodle traces evaluations TRACE_ID` and `oodle sessions evaluations SESSION_ID`. */
export function groupCommands(program: Command): void {
  const traces = program.command("traces").description("traces: the spans sharing a trace id, evaluated whole by trace evaluators");
  traces
    .command("evaluations <traceId>")
    .description("how each trace evaluator stands on a trace: waiting (until when and why), queued, ran (why, on how many spans) or stale (runs again when), with its current run")
    .addHelpText("after", "\nExamples:\n  oodle traces evaluations 4bf92f3577b34da6a3ce929d0e0e4736\n  oodle --json traces evaluations 4bf92f3577b34da6a3ce929d0e0e4736   # with the schedule's times and the run history")
    .action(
      action(async (ctx, traceId: string) => {
        const list = await ctx.ops.traceEvaluations(traceId);
        emit(ctx.output, list, () => groupEvaluationsText(list, "trace", traceId));
      }, { traceId: "TRACE_ID" }),
    );

  const sessions = program.command("sessions").description("sessions: the traces sharing a session key (session.id, gen_ai.conversation.id), evaluated whole by session evaluators");
  sessions
    .command("evaluations <sessionId>")
    .description("how each session evaluator stands on a session (its session key): waiting, queued, ran or stale, in words, with its current run")
    .addHelpText("after", "\nExamples:\n  oodle sessions evaluations conv-42\n  oodle --json sessions evaluations conv-42")
    .action(
      action(async (ctx, sessionId: string) => {
        const list = await ctx.ops.sessionEvaluations(sessionId);
        emit(ctx.output, list, () => groupEvaluationsText(list, "session", sessionId));
      }, { sessionId: "SESSION_ID" }),
    );
}
