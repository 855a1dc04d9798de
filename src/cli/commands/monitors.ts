import type { Command } from "commander";
import { action, type CommandContext } from "../context.js";
import { CliError, EXIT } from "../exit-codes.js";
import { numberFlag, parseDataFile } from "../inputs.js";
import type { DeliveryRecord, MonitorRecord } from "../../api-client/monitor-operations.js";
import { emit, fields, table } from "../output.js";
import { readTimeFlag, TIME_FLAG_RULE } from "../time.js";

/** Units of a duration flag, in seconds. */
const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

/**
 * A duration flag as seconds: `300`, `90s`, `5m`, `1h`, `7d`, `1w`.
 * @throws CliError BAD_USER_INPUT naming the flag.
 */
export function durationFlag(text: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)([smhdw]?)$/.exec(text.trim());
  if (!m) throw new CliError("BAD_USER_INPUT", `${flag}: "${text}" is not a duration: give seconds or 90s, 5m, 1h, 7d, 1w`, flag);
  const seconds = Number(m[1]) * UNITS[m[2] || "s"]!;
  if (!Number.isInteger(seconds)) throw new CliError("BAD_USER_INPUT", `${flag}: "${text}" is not a whole number of seconds`, flag);
  return seconds;
}

/** A duration in seconds for people: 300 → 5m, 3600 → 1h. */
export function durationText(seconds: number | null): string {
  if (seconds === null) return "-";
  for (const [unit, size] of [["w", 604800], ["d", 86400], ["h", 3600], ["m", 60]] as const) if (seconds % size === 0) return `${seconds / size}${unit}`;
  return `${seconds}s`;
}

/** What a monitor fires on, in one phrase. */
export function conditionText(m: MonitorRecord): string {
  if (m.condition === "drop") return `drop vs ${m.baseline} ≥ ${m.minEffect} (p < ${m.maxPValue}, n ≥ ${m.minSampleSize}) → ${m.dropSeverity}`;
  return [m.warningLevel !== null ? `warning ${m.warningLevel}` : null, m.alertLevel !== null ? `alert ${m.alertLevel}` : null].filter(Boolean).join(", ");
}

/** The metric with its score and window, in one phrase. */
export function metricText(m: MonitorRecord): string {
  const metric = m.metric === "percentile" ? `p${m.percentile}` : m.metric;
  return `${metric}${m.scoreName ? ` of ${m.scoreName}` : ""} over ${durationText(m.windowSeconds)} every ${durationText(m.cadenceSeconds)}`;
}

/** One monitor for people: settings, state, then (with history) its windows and transitions. */
export function monitorText(m: MonitorRecord): string {
  const lines = [
    fields([
      ["monitor", `${m.name} (${m.id})`],
      ["evaluator", m.evaluator.name],
      ["watches", metricText(m)],
      ["fires on", conditionText(m)],
      ["state", `${m.state} since ${m.stateSince}${m.muted ? `, muted${m.mutedUntil ? ` until ${m.mutedUntil}` : ""}${m.muteReason ? ` (${m.muteReason})` : ""}` : ""}${m.enabled ? "" : ", disabled"}`],
      ["last window", m.lastWindowEnd ?? "-"],
      ["destinations", m.destinations.map((d) => `${d.name} (${d.kind})`).join(", ") || "-"],
    ]),
  ];
  if (m.evaluations?.length) {
    lines.push("windows:", table(["window end", "state", "value", "n", "baseline", "p-value", "reason"], m.evaluations.map((e) => [e.windowEnd, e.state, e.value, e.n, e.baselineValue, e.pValue === null ? null : e.pValue.toExponential(2), e.reason])));
  }
  if (m.transitions?.length) lines.push("transitions:", table(["at", "from", "to", "cause", "reason"], m.transitions.map((t) => [t.at, t.fromState, t.toState, t.cause, t.reason])));
  return lines.join("\n");
}

/** Deliveries with each one's last answer. */
export function deliveriesText(list: DeliveryRecord[]): string {
  return table(
    ["id", "monitor", "destination", "event", "status", "attempts", "last answer", "created"],
    list.map((d) => {
      const last = d.log.at(-1);
      return [d.id, d.monitor.name, d.destination.name, d.event, d.status, d.attempts, last ? (last.statusCode !== null ? `HTTP ${last.statusCode}` : (last.error ?? "-")) : "-", d.createdAt];
    }),
  );
}

/** API fields no flag spells alike, by the flag that gives them. */
const FLAGS = {
  windowSeconds: "--window",
  cadenceSeconds: "--cadence",
  scoreName: "--score",
  warningLevel: "--warning",
  alertLevel: "--alert",
  minEffect: "--min-effect",
  maxPValue: "--max-p",
  dropSeverity: "--severity",
  minSampleSize: "--min-sample",
  renotifySeconds: "--renotify",
  destinationIds: "--destination",
};

/** The createMonitor / updateMonitor input from `-f FILE` and the flags (a flag given wins over the file). */
async function monitorInput(ctx: CommandContext, update: boolean): Promise<Record<string, unknown>> {
  const o = ctx.options;
  const input: Record<string, unknown> = o.file ? { ...(parseDataFile(o.file, "--file") as Record<string, unknown>) } : {};
  const evaluator = (o.evaluator as string | undefined) ?? (input.evaluator as string | undefined);
  delete input.evaluator;
  if (evaluator) input.evaluatorId = (await ctx.ops.getEvaluator(evaluator)).id;
  else if (!update && input.evaluatorId === undefined) throw new CliError("BAD_USER_INPUT", "give the evaluator to watch: --evaluator NAME", "--evaluator");
  const destinations = (o.destination as string[] | undefined) ?? (input.destinations as string[] | undefined);
  delete input.destinations;
  if (destinations) input.destinationIds = await Promise.all(destinations.map((d) => ctx.ops.monitors.destinationId(d, "--destination")));
  if (o.name !== undefined) input.name = o.name;
  if (o.description !== undefined) input.description = o.description;
  if (o.score !== undefined) input.scoreName = o.score;
  if (o.metric !== undefined) input.metric = o.metric;
  if (o.percentile !== undefined) input.percentile = numberFlag(o.percentile, "--percentile");
  for (const [flag, key] of [["window", "windowSeconds"], ["cadence", "cadenceSeconds"], ["renotify", "renotifySeconds"]] as const) {
    if (o[flag] !== undefined) input[key] = durationFlag(o[flag], `--${flag}`);
    else if (typeof input[key] === "string") input[key] = durationFlag(input[key] as string, key);
  }
  if (o.warning !== undefined) input.warningLevel = numberFlag(o.warning, "--warning");
  if (o.alert !== undefined) input.alertLevel = numberFlag(o.alert, "--alert");
  if (o.drop !== undefined) {
    input.condition = "drop";
    input.baseline = o.drop;
  } else if (o.warning !== undefined || o.alert !== undefined) input.condition = "threshold";
  if (o.minEffect !== undefined) input.minEffect = numberFlag(o.minEffect, "--min-effect");
  if (o.maxP !== undefined) input.maxPValue = numberFlag(o.maxP, "--max-p");
  if (o.severity !== undefined) input.dropSeverity = String(o.severity).toUpperCase();
  if (o.minSample !== undefined) input.minSampleSize = numberFlag(o.minSample, "--min-sample");
  if (o.minCount !== undefined) input.minCount = numberFlag(o.minCount, "--min-count");
  if (o.disabled) input.enabled = false;
  if (o.enabled) input.enabled = true;
  return input;
}

/** The settings flags shared by create and update. */
function settingsOptions(command: Command): Command {
  return command
    .option("-f, --file <file>", "the monitor as JSON or YAML (the createMonitor fields; evaluator and destinations by name); flags win over it")
    .option("--evaluator <name>", "the evaluator to watch (name or id)")
    .option("--name <name>", "unique in the workspace")
    .option("--description <text>", "what it watches and what to do (sent with each event)")
    .option("--metric <metric>", "pass_rate, mean, percentile, count, not_ok_share or backlog_age")
    .option("--score <name>", "the score to watch (pass_rate, mean, percentile; count counts its scores)")
    .option("--percentile <p>", "with --metric percentile: above 0 and below 100 (95 = p95)")
    .option("--window <duration>", "the window read at each evaluation: 5m to 7d (300, 90s, 5m, 1h, 7d)")
    .option("--cadence <duration>", "evaluated every: 1m to 1d")
    .option("--warning <level>", "threshold: WARNING past this level (the bad side comes from the metric and the score's direction)")
    .option("--alert <level>", "threshold: ALERT past this level")
    .option("--drop <baseline>", "a drop instead of a threshold, against previous_window, week_before or previous_version")
    .option("--min-effect <x>", "drop: the smallest change for the worse that fires (0.05 = 5 points of pass rate)")
    .option("--max-p <p>", "drop: fires only below this one-sided p-value (default 0.05)")
    .option("--severity <state>", "drop: WARNING or ALERT (default ALERT)")
    .option("--min-sample <n>", "drop: values each side needs before it is tested (default 30)")
    .option("--min-count <n>", "fewer values in the window: NO_DATA (default 1)")
    .option("--renotify <duration>", "tell again while firing, after this long")
    .option("--destination <name...>", "where events go (alert destinations, by name or id)");
}

/**
 * `oodle monitors …`: thresholds and drops over an evaluator's live scores, their history,
 * mute / resolve, test-fire, destinations and the delivery log.
 */
export function monitorsCommand(parent: Command): void {
  const monitors = parent.command("monitors").alias("monitor").description("alerts on scores: thresholds over windows and drops against a baseline, their history, destinations and deliveries");

  monitors
    .command("list")
    .description("the workspace's monitors, newest first")
    .option("--state <state>", "OK, WARNING, ALERT or NO_DATA")
    .option("--evaluator <name>", "monitors of this evaluator")
    .action(
      action(async (ctx) => {
        const evaluatorId = ctx.options.evaluator ? (await ctx.ops.getEvaluator(ctx.options.evaluator)).id : undefined;
        const list = await ctx.ops.monitors.listMonitors({ state: ctx.options.state, evaluatorId });
        emit(ctx.output, list, () => table(["id", "name", "state", "evaluator", "watches", "fires on", "last window"], list.map((m) => [m.id, m.name, `${m.state}${m.muted ? " (muted)" : ""}`, m.evaluator.name, metricText(m), conditionText(m), m.lastWindowEnd])));
      }),
    );

  monitors
    .command("get <monitor>")
    .description("a monitor's settings and state, with its last windows and transitions")
    .option("--history <n>", "windows and transitions shown (default 10)", "10")
    .action(
      action(async (ctx, ref: string) => {
        const m = await ctx.ops.monitors.getMonitor(ref, numberFlag(ctx.options.history, "--history"));
        emit(ctx.output, m, () => monitorText(m));
      }),
    );

  monitors
    .command("history <monitor>")
    .description("a monitor's evaluated windows (value, n, baseline, p-value, reason) and state changes, newest first")
    .option("--limit <n>", "at most this many of each (default 50, at most 100)", "50")
    .action(
      action(async (ctx, ref: string) => {
        const m = await ctx.ops.monitors.getMonitor(ref, numberFlag(ctx.options.limit, "--limit"));
        emit(ctx.output, { evaluations: m.evaluations ?? [], transitions: m.transitions ?? [] }, () => monitorText(m));
      }),
    );

  settingsOptions(monitors.command("create").description("creates a monitor: evaluated every cadence from the next window end"))
    .addHelpText(
      "after",
      '\nExamples:\n  oodle monitors create --name "Helpful rate" --evaluator "Helpfulness" --metric pass_rate --score helpful --window 1h --cadence 5m --warning 0.9 --alert 0.85 --destination oncall\n' +
        '  oodle monitors create --name "Helpful drop" --evaluator "Helpfulness" --metric pass_rate --score helpful --window 1h --cadence 5m --drop week_before --min-effect 0.05\n' +
        '  oodle monitors create --name "v2 vs v1" --evaluator "Helpfulness" --metric mean --score grounded --window 6h --cadence 1h --drop previous_version --min-effect 0.02',
    )
    .action(
      action(async (ctx) => {
        const m = await ctx.ops.monitors.createMonitor(await monitorInput(ctx, false));
        emit(ctx.output, m, () => `created monitor "${m.name}" (${m.id}): ${metricText(m)}, ${conditionText(m)}`);
      }, FLAGS),
    );

  settingsOptions(monitors.command("update <monitor>").description("changes the given settings (its state and history stay)"))
    .option("--disabled", "stop evaluating it")
    .option("--enabled", "evaluate it again")
    .action(
      action(async (ctx, ref: string) => {
        const input = { id: await ctx.ops.monitors.monitorId(ref), ...(await monitorInput(ctx, true)) };
        const m = await ctx.ops.monitors.updateMonitor(input);
        emit(ctx.output, m, () => `updated monitor "${m.name}": ${metricText(m)}, ${conditionText(m)}`);
      }, FLAGS),
    );

  monitors
    .command("delete <monitor>")
    .description("deletes a monitor with its history and deliveries")
    .action(
      action(async (ctx, ref: string) => {
        const r = await ctx.ops.monitors.deleteMonitor(await ctx.ops.monitors.monitorId(ref));
        emit(ctx.output, r, () => `deleted monitor "${r.name}"`);
      }),
    );

  monitors
    .command("mute <monitor>")
    .description("evaluated as usual, but nothing is sent until unmuted (or --until)")
    .option("--until <time>", `until then: ${TIME_FLAG_RULE}`)
    .option("--reason <text>", "why (shown with the monitor)")
    .action(
      action(async (ctx, ref: string) => {
        const until = ctx.options.until ? readTimeFlag(ctx.options.until, "--until").iso : undefined;
        const m = await ctx.ops.monitors.muteMonitor({ id: await ctx.ops.monitors.monitorId(ref), ...(until ? { until } : {}), ...(ctx.options.reason ? { reason: ctx.options.reason } : {}) });
        emit(ctx.output, m, () => `muted monitor "${m.name}"${m.mutedUntil ? ` until ${m.mutedUntil}` : ""}`);
      }),
    );

  monitors
    .command("unmute <monitor>")
    .description("sends again; the next window tells what changed meanwhile")
    .action(
      action(async (ctx, ref: string) => {
        const m = await ctx.ops.monitors.unmuteMonitor(await ctx.ops.monitors.monitorId(ref));
        emit(ctx.output, m, () => `unmuted monitor "${m.name}" (${m.state})`);
      }),
    );

  monitors
    .command("resolve <monitor>")
    .description("sets a firing monitor to OK by hand and tells its destinations (the next window is evaluated as usual)")
    .option("--reason <text>", "kept in the transition")
    .action(
      action(async (ctx, ref: string) => {
        const m = await ctx.ops.monitors.resolveMonitor({ id: await ctx.ops.monitors.monitorId(ref), ...(ctx.options.reason ? { reason: ctx.options.reason } : {}) });
        emit(ctx.output, m, () => `monitor "${m.name}" is ${m.state}`);
      }),
    );

  monitors
    .command("test-fire <monitor>")
    .description("sends a test event (the newest window evaluated now) to every destination and prints each answer; exit 1 when one was not delivered")
    .action(
      action(async (ctx, ref: string) => {
        const r = await ctx.ops.monitors.testFireMonitor(await ctx.ops.monitors.monitorId(ref));
        emit(ctx.output, r, () => deliveriesText(r.deliveries));
        return r.deliveries.every((d) => d.status === "delivered") ? EXIT.ok : EXIT.server;
      }),
    );

  monitors
    .command("deliveries")
    .description("the delivery log: events sent, their status and the receivers' answers, newest first")
    .option("--monitor <monitor>", "deliveries of this monitor")
    .option("--status <status>", "pending, delivered or failed")
    .action(
      action(async (ctx) => {
        const monitorId = ctx.options.monitor ? await ctx.ops.monitors.monitorId(ctx.options.monitor, "--monitor") : undefined;
        const list = await ctx.ops.monitors.listDeliveries({ monitorId, status: ctx.options.status });
        emit(ctx.output, list, () => deliveriesText(list));
      }),
    );

  const destinations = monitors.command("destinations").description("where monitors send events: signed webhooks and Slack incoming webhooks");
  destinations
    .command("list")
    .description("the workspace's destinations (never their URL or secret)")
    .action(
      action(async (ctx) => {
        const list = await ctx.ops.monitors.listDestinations();
        emit(ctx.output, list, () => table(["id", "name", "kind", "url", "signed", "sealed"], list.map((d) => [d.id, d.name, d.kind, d.urlHint, d.signed, d.sealed])));
      }),
    );
  destinations
    .command("create <name>")
    .description("creates a destination; a webhook's signing secret is printed once: keep it to verify Oodle-Signature")
    .requiredOption("--kind <kind>", "webhook or slack")
    .requiredOption("--endpoint <url>", "where to POST (a Slack webhook URL is stored sealed and never shown again)")
    .action(
      action(async (ctx, name: string) => {
        const r = await ctx.ops.monitors.createDestination({ name, kind: ctx.options.kind, url: ctx.options.endpoint });
        emit(ctx.output, r, () => `created ${r.destination.kind} destination "${r.destination.name}" (${r.destination.id})${r.signingSecret ? `\nsigning secret (shown once): ${r.signingSecret}` : ""}`);
      }, { url: "--endpoint" }),
    );
  destinations
    .command("delete <destination>")
    .description("deletes a destination and its delivery log")
    .action(
      action(async (ctx, ref: string) => {
        const r = await ctx.ops.monitors.deleteDestination(await ctx.ops.monitors.destinationId(ref));
        emit(ctx.output, r, () => `deleted destination "${r.name}"`);
      }),
    );
}
