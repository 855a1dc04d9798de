import type { Command } from "commander";
import { action } from "../context.js";
import { CliError } from "../exit-codes.js";
import { jsonOrFile, keyValues, numberFlag, parseDataFile } from "../inputs.js";
import type { EvaluatorRecord, GroupSettingsRecord, MatchExplanationRecord } from "../../api-client/operations.js";
import { durationFlag } from "./monitors.js";
import { limitFlags, limitOptions, limitsText } from "../limit-flags.js";
import { emit, fields, table } from "../output.js";

/**
 * The rule of an evaluator in one line: `chat root spans, name "*", app.channel=support, tag.tags∋"vip", resource deployment.environment="production", 100% sampled`;
 * a trace or session evaluator's says the groups it takes: `traces with any agent span, …` (`sessions with a chat root span` with root spans only).
 */
export function describeRule(e: Pick<EvaluatorRecord, "spanKind" | "rootSpansOnly" | "spanNamePattern" | "attributeEquals" | "attributeContains" | "resourceAttributeEquals" | "samplingRate"> & { target?: string }): string {
  const target = e.target ?? "span";
  const parts = [target === "span" ? `${e.spanKind} ${e.rootSpansOnly ? "root spans" : "spans"}` : `${target}s with ${e.rootSpansOnly ? `a ${e.spanKind} root span` : `any ${e.spanKind} span`}`];
  if (e.spanNamePattern) parts.push(`name matching "${e.spanNamePattern}"`);
  for (const [k, v] of Object.entries(e.attributeEquals as Record<string, unknown>)) parts.push(`${k}=${JSON.stringify(v)}`);
  for (const [k, v] of Object.entries(e.attributeContains ?? {})) parts.push(`${k} contains ${JSON.stringify(v)}`);
  for (const [k, v] of Object.entries(e.resourceAttributeEquals ?? {})) parts.push(`resource ${k}=${JSON.stringify(v)}`);
  parts.push(`${Math.round(e.samplingRate * 1000) / 10}% sampled`);
  return parts.join(", ");
}

/**
 * The answer of explainMatch for people (CLI and MCP): the rule's decision, then the run on the
 * span if any (a match can still be skipped by a gate); then one line per part of the rule, `ok` or
 * `NO`, so it says which part matched and which did not; then `!` and why the span's document is
 * incomplete, when its sender dropped attributes. A blocked evaluator's answer starts with
 * `BLOCKED: the evaluator is blocked since …: …` (a matched span's run is skipped meanwhile).
 */
export function explanationLine(
  r: Pick<MatchExplanationRecord, "matched" | "reason" | "detail"> &
    Partial<Pick<MatchExplanationRecord, "conditions" | "incomplete" | "blockedReason">> & { run: { outcome: string; skipReason: string | null } | null },
): string {
  const rule = `${r.matched ? "matches" : `does not match (${r.reason})`}: ${r.detail}`;
  const first = r.run ? `${rule}; its run: ${r.run.outcome}${r.run.skipReason ? ` (${r.run.skipReason})` : ""}` : rule;
  const parts = (r.conditions ?? []).map((c) => `  ${c.passed ? "ok" : "NO"}  ${c.condition}${c.key != null ? ` ${c.key}` : ""}: ${c.detail}`);
  return [...(r.blockedReason ? [`BLOCKED: ${r.blockedReason}`] : []), first, ...parts, ...(r.incomplete ? [`  !   ${r.incomplete}`] : [])].join("\n");
}

/** Milliseconds for people: 30 s, 15 min, 4 h, 1500 ms. */
function msText(ms: number): string {
  for (const [unit, size] of [["d", 86_400_000], ["h", 3_600_000], ["min", 60_000], ["s", 1_000]] as const) if (ms % size === 0) return `${ms / size} ${unit}`;
  return `${ms} ms`;
}

/**
 * A trace or session evaluator's group settings as they apply, one `key: value` row each:
 * `done when: end marker oodle.trace.end = true, else 30 s quiet, else 10 min after the first span`.
 */
export function groupSettingsRows(target: string, g: GroupSettingsRecord): [string, string][] {
  const marker = `a span with ${g.endMarkerAttribute} = true${g.endOnRootSpan ? " or the root span's arrival" : ""}`;
  return [
    ["done when", `${marker}, else ${msText(g.quietPeriodMs)} without a new span, else ${msText(g.maxWaitMs)} after the first span (runs on what arrived)`],
    ...(target === "session" ? [["session key", (g.sessionKeyAttributes ?? []).join(", then ")] as [string, string]] : []),
    ["caps", [`${g.maxSpans} spans`, ...(g.maxTurns !== null ? [`${g.maxTurns} turns`] : []), `${g.maxDocumentBytes} bytes`].join(", ")],
  ];
}

/**
 * An evaluator's block for people: `BLOCKED since 2026-12-06T21:00:00.000Z: invalid_api_key …
 * (its runs are skipped; unblock: oodle genai evaluators unblock "NAME")` (`unblock`: how, for
 * another transport); null when it is not blocked.
 */
export function blockedText(e: Pick<EvaluatorRecord, "name" | "blockedAt" | "blockedReason">, unblock = `oodle genai evaluators unblock ${JSON.stringify(e.name)}`): string | null {
  if (!e.blockedAt) return null;
  return `BLOCKED since ${String(e.blockedAt)}: ${e.blockedReason ?? "no reason was recorded"} (its runs are skipped; unblock: ${unblock})`;
}

/** A blocked reason for a table cell: its first 100 characters (`get` shows all of it). */
function shortReason(reason: string | null): string {
  const text = reason ?? "no reason was recorded";
  return text.length <= 100 ? text : `${text.slice(0, 99)}…`;
}

function evaluatorText(e: EvaluatorRecord): string {
  const version = e.templateVersion ? `version ${e.templateVersion.version} (${e.followsLatest ? "follows the latest" : `pinned to ${e.pinnedVersion}`})` : "-";
  const set = Object.entries(e.params as Record<string, unknown>);
  return [
    fields([
      ["name", e.name],
      ["id", e.id],
      ["kind", e.kind],
      ["target", e.target === "span" ? "span (each matching span)" : `${e.target} (the whole ${e.target}, once done; taken when any of its spans matches the rule)`],
      ...(e.groupSettings ? groupSettingsRows(e.target, e.groupSettings) : []),
      ["enabled", e.enabled ? "yes" : "no"],
      ...(e.blockedAt ? [["blocked", blockedText(e)!] as [string, string]] : []),
      ["template", e.template ? `${e.template.name}${e.template.kind === "llm" ? " (llm: a judge)" : ""}` : "- (external: scores are posted)"],
      ["template version", version],
      // A judge's connection and spend cap (other kinds have neither).
      ...(e.connection || e.maxCostPerHourUsd !== null
        ? ([
            ["connection", e.connection ? `${e.connection.name} (${e.connection.provider}, default model ${e.connection.defaultModel}, ${e.connection.maxConcurrentRequests} request(s) at once)` : "none"],
            ["spend cap", e.maxCostPerHourUsd !== null ? `$${e.maxCostPerHourUsd} per rolling hour` : "none"],
          ] as [string, string][])
        : []),
      ["rule", describeRule(e)],
      ["isolation", e.isolation],
      ["limits", `${limitsText(e.runLimits)}${Object.keys(e.limits ?? {}).length ? " (its own)" : ""}`],
      ["dependencies", e.dependencies.length ? e.dependencies.map((d) => d.dependsOn.name + (d.gate ? ` (gate ${d.gate.score}${d.gate.at !== null ? ` at ${d.gate.at}` : ""}${d.gate.spans ? ` on ${d.gate.spans === "any" ? "any span" : "all spans"}` : ""})` : "")).join(", ") : "none"],
    ]),
    set.length ? `values set:\n${set.map(([k, v]) => `  ${k} = ${JSON.stringify(v)}`).join("\n")}` : "values set: none (every setting takes its default)",
    `ctx.params: ${JSON.stringify(e.resolvedParams)}`,
  ].join("\n");
}

/** The group-settings flags given (their API keys); {} when none. @throws CliError naming the flag. */
export function groupSettingFlags(o: Record<string, any>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (o.quietPeriod !== undefined) out.quietPeriodMs = durationFlag(o.quietPeriod, "--quiet-period") * 1000;
  if (o.maxWait !== undefined) out.maxWaitMs = durationFlag(o.maxWait, "--max-wait") * 1000;
  if (o.endMarker !== undefined) out.endMarkerAttribute = o.endMarker;
  if (o.endOnRootSpan !== undefined) out.endOnRootSpan = o.endOnRootSpan;
  if (o.sessionKey !== undefined) out.sessionKeyAttribute = o.sessionKey;
  if (o.maxSpans !== undefined) out.maxSpans = numberFlag(o.maxSpans, "--max-spans");
  if (o.maxTurns !== undefined) out.maxTurns = numberFlag(o.maxTurns, "--max-turns");
  if (o.maxDocumentBytes !== undefined) out.maxDocumentBytes = numberFlag(o.maxDocumentBytes, "--max-document-bytes");
  return out;
}

/** The API's group-settings fields (and the spend cap) by the flag that gives them (refusals name the flag). */
const GROUP_SETTING_FLAGS: Record<string, string> = Object.fromEntries(
  Object.entries({
    quietPeriodMs: "--quiet-period",
    maxWaitMs: "--max-wait",
    endMarkerAttribute: "--end-marker",
    endOnRootSpan: "--end-on-root-span",
    sessionKeyAttribute: "--session-key",
    maxSpans: "--max-spans",
    maxTurns: "--max-turns",
    maxDocumentBytes: "--max-document-bytes",
  }).flatMap(([field, flag]) => [
    [`groupSettings.${field}`, flag],
    [`input.groupSettings.${field}`, flag],
  ]),
);
GROUP_SETTING_FLAGS.maxCostPerHourUsd = "--max-cost-per-hour";

/** An evaluator save from --file (JSON/YAML) and flags. */
function evaluatorFields(o: Record<string, any>): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  if (o.file) {
    const data = parseDataFile(o.file, "--file");
    if (typeof data !== "object" || data === null || Array.isArray(data)) throw new CliError("BAD_USER_INPUT", "must hold an object of evaluator fields", "--file");
    Object.assign(input, data);
  }
  if (o.name !== undefined) input.name = o.name;
  if (o.template !== undefined) input.templateName = o.template;
  if (o.params !== undefined) input.params = jsonOrFile(o.params, "--params");
  if (o.enable) input.enabled = true;
  if (o.disable) input.enabled = false;
  if (o.enable && o.disable) throw new CliError("BAD_USER_INPUT", "give --enable or --disable, not both", "--enable");
  if (o.spanKind !== undefined) input.spanKind = o.spanKind;
  if (o.spanName !== undefined) input.spanNamePattern = o.spanName;
  if (o.attribute !== undefined) input.attributeEquals = keyValues(o.attribute, "--attribute");
  if (o.attributeContains !== undefined) input.attributeContains = keyValues(o.attributeContains, "--attribute-contains");
  if (o.resourceAttribute !== undefined) input.resourceAttributeEquals = keyValues(o.resourceAttribute, "--resource-attribute");
  if (o.rootSpansOnly !== undefined) input.rootSpansOnly = o.rootSpansOnly;
  if (o.samplingRate !== undefined) input.samplingRate = numberFlag(o.samplingRate, "--sampling-rate");
  if (o.isolation !== undefined) input.isolation = o.isolation;
  if (o.kind !== undefined) input.kind = o.kind;
  if (o.target !== undefined) input.target = o.target;
  if (o.connection !== undefined) input.connectionName = o.connection;
  if (o.maxCostPerHour !== undefined) input.maxCostPerHourUsd = o.maxCostPerHour === "none" ? null : numberFlag(o.maxCostPerHour, "--max-cost-per-hour");
  const group = groupSettingFlags(o);
  if (Object.keys(group).length) input.groupSettings = { ...(input.groupSettings as object | undefined), ...group };
  if (o.pin !== undefined) input.pinnedVersion = o.pin === "latest" ? null : numberFlag(o.pin, "--pin");
  if (o.dependsOn !== undefined) input.dependencies = (o.dependsOn as string[]).map((evaluator) => ({ evaluator }));
  const limits = limitFlags(o);
  if (Object.keys(limits).length) input.limits = { ...(input.limits as object | undefined), ...limits };
  return input;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** `oodle genai evaluators …`. */
export function evaluatorsCommand(genai: Command): void {
  const evaluators = genai.command("evaluators").description("evaluators: a template run with its own setting values on the spans its rule matches");

  evaluators
    .command("list")
    .description("the workspace's evaluators")
    .option("--template <name>", "only those running this template")
    .action(
      action(async (ctx) => {
        const list = await ctx.ops.listEvaluators({ template: ctx.options.template });
        emit(ctx.output, list, () =>
          table(
            ["name", "enabled", "template", "version", "rule", "values"],
            list.map((e) => [e.name, `${e.enabled ? "yes" : "no"}${e.blockedAt ? `, BLOCKED: ${shortReason(e.blockedReason)}` : ""}`, e.template?.name ?? "(external)", e.templateVersion?.version, describeRule(e), e.params]),
          ),
        );
      }),
    );

  evaluators
    .command("get <name>")
    .description("an evaluator (by name or id): the values it sets, its rule and its template version")
    .addHelpText("after", '\nExample:\n  oodle genai evaluators get "Refund mentioned"')
    .action(
      action(async (ctx, name: string) => {
        const e = await ctx.ops.getEvaluator(name);
        emit(ctx.output, e, () => evaluatorText(e));
      }),
    );

  const saveOptions = (c: Command) =>
    c
      .option("--file <file>", "a JSON or YAML file of evaluator fields (name, templateName, params, spanKind, attributeEquals, …)")
      .option("--name <name>")
      .option("--template <name>", "the template it runs")
      .option("--params <json|@file>", 'setting values, e.g. \'{"required": ["refund"], "mode": "any"}\'')
      .option("--enable", "enabled")
      .option("--disable", "disabled")
      .option("--span-kind <kind>", "chat, tool, agent, retrieval or other")
      .option("--span-name <glob>", "a glob over span names")
      .option("--attribute <key=value>", "a span attribute that must be equal (repeatable)", collect)
      .option("--attribute-contains <key=value>", "a list attribute (tags) that must contain the value, e.g. tag.tags=vip (repeatable)", collect)
      .option("--resource-attribute <key=value>", "a resource attribute that must be equal, e.g. deployment.environment=production (repeatable)", collect)
      .option("--root-spans-only", "run on root spans only (no parent span)")
      .option("--no-root-spans-only", "run on every span, root or not")
      .option("--sampling-rate <0..1>")
      .option("--isolation <warm|strict>")
      .option("--connection <name>", "a judge's connection to an LLM provider (oodle genai connections list)")
      .option("--max-cost-per-hour <usd>", "a judge's spend cap: US dollars of judge calls per rolling hour (update: none removes it)")
      .option("--pin <version|latest>", "stay on a template version, or follow the latest")
      .option("--depends-on <evaluator>", "an evaluator it runs after (repeatable; update replaces the list)", collect)
      .option("--reset-limits", "update: drop its own limits first (its template's, then the defaults, apply)")
      .option("--quiet-period <duration>", "trace/session: no new span for this long ends the group (300, 90s, 5m, 1h, 7d; default 30s for a trace, 15m for a session)")
      .option("--max-wait <duration>", "trace/session: at most this long after the first span it runs on what arrived (default 10m for a trace, 4h for a session)")
      .option("--end-marker <attribute>", "trace/session: a span with this attribute true ends the group at once (default oodle.trace.end / oodle.session.end)")
      .option("--end-on-root-span", "trace: the root span's arrival ends the trace")
      .option("--no-end-on-root-span", "trace: the root span's arrival does not end the trace (default)")
      .option("--session-key <attribute>", "session: the span attribute holding the session key (default session.id, then gen_ai.conversation.id)")
      .option("--max-spans <n>", "trace/session: spans passed to the code (default 500, at most 5000)")
      .option("--max-turns <n>", "session: turns passed to the code (default 200, at most 2000)")
      .option("--max-document-bytes <n>", "trace/session: bytes of the document (default 1 MiB, at most 8 MiB)")
      .option("--reset-group-settings", "update: drop the group settings it asked first (the defaults apply)");
  const withLimits = (c: Command) => limitOptions(saveOptions(c));

  withLimits(evaluators.command("create").description("creates an evaluator"))
    .option("--kind <code|external|judge>", "code (a code template), judge (an llm template and --connection) or external (scores are posted); default: from the template")
    .option("--target <span|trace|session>", "what it runs on: each matching span (default), a whole trace or a whole session once done (fixed once created)")
    .addHelpText(
      "after",
      "\nA trace or session evaluator takes a trace or session when any of its spans matches the rule (--root-spans-only: its root span).\n\nExamples:\n" +
        "  oodle genai evaluators create --name 'Refund mentioned' --template 'Keyword check' --params '{\"required\": [\"refund\"]}' --attribute app.channel=support\n" +
        "  oodle genai evaluators create --name 'Agent trace' --template 'Tool use' --target trace --span-kind agent --quiet-period 30s --max-wait 10m --end-on-root-span\n" +
        "  oodle genai evaluators create --name 'Conversation' --template 'Thread check' --target session --quiet-period 15m --session-key app.conversation\n" +
        "  oodle genai evaluators create --name 'Politeness judge' --template Politeness --connection openai --max-cost-per-hour 2.5",
    )
    .action(
      action(async (ctx) => {
        const e = await ctx.ops.createEvaluator(evaluatorFields(ctx.options));
        emit(ctx.output, e, () => `created evaluator "${e.name}" (${e.id})\n${evaluatorText(e)}`);
      }, GROUP_SETTING_FLAGS),
    );

  withLimits(evaluators.command("update <name>").description("changes an evaluator (by name or id); --params sets the given values and keeps the others (--replace-params replaces them all); group-setting flags likewise"))
    .option("--replace-params", "--params replaces every value (the ones not given fall back to their defaults)")
    .option("--target <span|trace|session>", "refused when it differs: the target is fixed (create a new evaluator)")
    .addHelpText(
      "after",
      "\nExamples:\n  oodle genai evaluators update 'Refund mentioned' --params '{\"required\": [\"refund\", \"return\"]}'   # keeps mode\n  oodle genai evaluators update 'Refund mentioned' --params '{\"mode\": null}'   # mode back to its default\n  oodle genai evaluators update 'Refund mentioned' --disable\n  oodle genai evaluators update 'Agent trace' --quiet-period 1m   # keeps its other group settings",
    )
    .action(
      action(async (ctx, name: string) => {
        const fields = evaluatorFields(ctx.options);
        // Limit flags change the keys given and keep the others (--reset-limits drops them first), as --params does.
        if (ctx.options.resetLimits) fields.limits = { ...(fields.limits as object | undefined) };
        else if (fields.limits !== undefined) fields.limits = { ...((await ctx.ops.getEvaluator(name)).limits as object), ...(fields.limits as object) };
        // Group-setting flags likewise: the keys given change, the others it asked stay (--reset-group-settings drops them first).
        if (ctx.options.resetGroupSettings) fields.groupSettings = { ...(fields.groupSettings as object | undefined) };
        else if (fields.groupSettings !== undefined) fields.groupSettings = { ...((await ctx.ops.getEvaluator(name)).askedGroupSettings as object), ...(fields.groupSettings as object) };
        const fieldsToSave = fields.params !== undefined && !ctx.options.replaceParams ? { ...fields, mergeParams: true } : fields;
        const e = await ctx.ops.updateEvaluator(name, fieldsToSave);
        emit(ctx.output, e, () => `updated evaluator "${e.name}"\n${evaluatorText(e)}`);
      }, GROUP_SETTING_FLAGS),
    );

  evaluators
    .command("delete <name>")
    .description("deletes (archives) an evaluator; its runs and scores stay")
    .action(
      action(async (ctx, name: string) => {
        const e = await ctx.ops.deleteEvaluator(name);
        emit(ctx.output, e, () => `deleted evaluator "${e.name}"`);
      }),
    );

  evaluators
    .command("unblock <name>")
    .description("unblocks an evaluator (by name or id) that a terminal provider error blocked (invalid key, unknown model, quota exhausted): its next runs call the provider again")
    .addHelpText("after", '\nFix the cause first (the connection\'s key or model, the provider\'s quota), then:\n  oodle genai evaluators unblock "Helpfulness judge"')
    .action(
      action(async (ctx, name: string) => {
        const before = await ctx.ops.getEvaluator(name);
        const e = await ctx.ops.unblockEvaluator(before.id);
        emit(ctx.output, e, () => (before.blockedAt ? `unblocked evaluator "${e.name}" (blocked since ${String(before.blockedAt)}: ${before.blockedReason ?? "no reason was recorded"})` : `evaluator "${e.name}" was not blocked`));
      }),
    );

  evaluators
    .command("explain <evaluator> <span>")
    .description("why an evaluator did or did not run on a span: the span's global id, TRACE_ID:SPAN_ID, or its own span id with --trace")
    .option("--trace <traceId>", "<span> is the span's own id in this trace (as the application sent it)")
    .addHelpText("after", '\nExamples:\n  oodle genai evaluators explain "Refund mentioned" t1:s1\n  oodle genai evaluators explain "Refund mentioned" s1 --trace t1\n  oodle genai evaluators explain "Refund mentioned" <global id from oodle spans list>')
    .action(
      action(async (ctx, evaluator: string, span: string) => {
        const spanId = await ctx.ops.spanGlobalId(span, ctx.options.trace, "span");
        const r = await ctx.ops.explainMatch(spanId, evaluator);
        emit(ctx.output, r, () => explanationLine(r));
      }),
    );
}
