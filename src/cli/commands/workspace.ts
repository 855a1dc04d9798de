import type { Command } from "commander";
import type { WorkspaceLimitsRecord } from "../../api-client/operations.js";
import { action } from "../context.js";
import { CliError } from "../exit-codes.js";
import { emit } from "../output.js";

/** The human text of a workspace's limits (also the MCP tool's text). */
export function limitsText(limits: WorkspaceLimitsRecord): string {
  const r = limits.retention;
  const kept = r.days === null ? "kept forever" : `kept ${r.days} days (spans created before ${r.cutoff} age out at the next sweep)`;
  const why = { default: "the deployment's default", workspace: "the workspace's setting", ceiling: "the deployment's ceiling (the setting is past it)" }[r.source];
  const per = (n: number | null | undefined) => (n == null ? "no limit" : `${n}/min`);
  return [
    `retention: spans, their runs and scores, and run history ${kept}: ${why}`,
    `  default ${r.defaultDays ?? "forever"}, ceiling ${r.maxDays ?? "none"}; set ${r.settingKeepForever ? "forever" : (r.settingDays ?? "nothing")}`,
    `rate limits: ingest ${per(limits.rateLimits.ingestPerMinute)}, tryCode ${per(limits.rateLimits.tryCodePerMinute)}, mutations ${per(limits.rateLimits.mutationsPerMinute)}, read points ${per(limits.rateLimits.readsPerMinute)}`,
    `live backlog bound: ${limits.maxQueuedEvaluations ?? "none"} queued evaluations`,
  ].join("\n");
}

/** `oodle workspace limits` and `oodle workspace retention`. */
export function workspaceCommand(program: Command): void {
  const workspace = program.command("workspace").description("the workspace's limits and retention");
  workspace
    .command("limits")
    .description("retention in force (and where it comes from), rate limits and the live backlog bound")
    .action(
      action(async (ctx) => {
        const limits = await ctx.ops.workspaceLimits();
        emit(ctx.output, limits, () => limitsText(limits));
      }),
    );
  workspace
    .command("retention")
    .description("sets how long spans, their runs and scores, and run history are kept: one of --days, --forever, --default")
    .option("--days <n>", "keep this many days (1 to the deployment's ceiling)")
    .option("--forever", "keep everything (refused while the deployment sets a ceiling)")
    .option("--default", "back to the deployment's default")
    .addHelpText("after", "\nExamples:\n  oodle workspace retention --days 30\n  oodle workspace retention --default\nOlder data is deleted by the worker's sweep in short batches.")
    .action(
      action(
        async (ctx) => {
          const o = ctx.options as { days?: string; forever?: boolean; default?: boolean };
          const given = [o.days !== undefined, Boolean(o.forever), Boolean(o.default)].filter(Boolean).length;
          if (given !== 1) throw new CliError("BAD_USER_INPUT", "give exactly one of --days N, --forever or --default", "--days");
          if (o.days !== undefined && !/^\d{1,6}$/.test(o.days)) throw new CliError("BAD_USER_INPUT", `must be a whole number of days; got "${o.days}"`, "--days");
          const limits = await ctx.ops.setWorkspaceRetention(
            o.days !== undefined ? { retentionDays: Number(o.days) } : o.forever ? { keepForever: true } : { useDefault: true },
          );
          emit(ctx.output, limits, () => limitsText(limits));
        },
        { "input.retentionDays": "--days", "input.keepForever": "--forever", "input.useDefault": "--default" },
      ),
    );
}
