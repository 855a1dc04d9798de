import type { Command } from "commander";
import { action } from "../context.js";
import { EXIT } from "../exit-codes.js";
import { numberFlag, readJsonLines } from "../inputs.js";
import { emit } from "../output.js";

/** `oodle spans ingest FILE.jsonl`: one span a line, sent in batches (the API takes up to 1,000 a call). */
export function spansCommand(program: Command): void {
  const spans = program.command("spans").description("spans: what the application did, scored live by the evaluators that match");
  spans
    .command("ingest <file>")
    .description("sends the spans of a JSON Lines file (ingestSpans shape, one a line) and queues the evaluations they match")
    .option("--batch-size <n>", "spans per call (at most 1000)", "500")
    .addHelpText("after", '\nA line: {"traceId": "t1", "spanId": "s1", "name": "chat", "input": [{"role": "user", "content": "Hi"}], "output": "Hello", "attributes": {"app.channel": "support"}}\nExit 2 when a span was refused (the others are stored).')
    .action(
      action(async (ctx, file: string) => {
        const all = readJsonLines(file, "file");
        const size = numberFlag(ctx.options.batchSize, "--batch-size");
        const result = { stored: 0, created: 0, evaluationsQueued: 0, spans: [] as { line: number; id: string; created: boolean }[], rejected: [] as { line: number; issues: { path: string; message: string }[] }[] };
        for (let start = 0; start < all.length; start += size) {
          const batch = await ctx.ops.ingestSpans(all.slice(start, start + size));
          result.evaluationsQueued += batch.evaluationsQueued;
          for (const s of batch.spans) {
            result.stored++;
            if (s.created) result.created++;
            result.spans.push({ line: start + s.index + 1, id: s.id, created: s.created });
          }
          for (const r of batch.rejected) result.rejected.push({ line: start + r.index + 1, issues: r.issues });
        }
        emit(ctx.output, result, () =>
          [
            `stored ${result.stored} span(s) (${result.created} new), ${result.evaluationsQueued} evaluation(s) queued`,
            ...result.rejected.map((r) => `rejected line ${r.line}: ${r.issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`),
          ].join("\n"),
        );
        return result.rejected.length ? EXIT.badInput : EXIT.ok;
      }),
    );
}
