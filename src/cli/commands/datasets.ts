import type { Command } from "commander";
import { action } from "../context.js";
import { emit, table } from "../output.js";

/** `oodle datasets …`. */
export function datasetsCommand(program: Command): void {
  const datasets = program.command("datasets").description("datasets: examples that experiments run evaluators over");
  datasets
    .command("list")
    .action(
      action(async (ctx) => {
        const list = await ctx.ops.listDatasets();
        emit(ctx.output, list, () => table(["name", "items", "created"], list.map((d) => [d.name, d.itemCount, d.createdAt])));
      }),
    );
  datasets
    .command("import <name> <file>")
    .description("imports JSON Lines (the shape of shared/data items.jsonl) into a dataset (created, or appended to), in one transaction")
    .option("--skip-bad-lines", "import the good lines and list the bad ones (default: a bad line imports nothing)")
    .addHelpText("after", "\nExample:\n  oodle datasets import xstest data/demo/xstest.jsonl")
    .action(
      action(async (ctx, name: string, file: string) => {
        const r = await ctx.ops.importDataset(name, file, Boolean(ctx.options.skipBadLines));
        emit(ctx.output, r, () =>
          [`imported ${r.imported} item(s) into "${r.dataset.name}" (${r.dataset.itemCount} in all)`, ...r.badLines.map((b) => `skipped line ${b.line}: ${b.message}`)].join("\n"),
        );
      }),
    );
}
