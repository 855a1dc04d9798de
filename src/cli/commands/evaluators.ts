import type { Command } from "commander";
import { action } from "../context.js";
import { CliError } from "../exit-codes.js";
import { jsonOrFile, keyValues, numberFlag, parseDataFile } from "../inputs.js";
import type { EvaluatorRecord, MatchExplanationRecord } from "../../api-client/operations.js";
import { limitFlags, limitOptions, limitsText } from "../limit-flags.js";
import { emit, fields, table } from "../output.js";

/** The rule of an evaluator in one line: `chat root spans, name "*", app.channel=support, tag.tags∋"vip", resource deployment.environment="production", 100% sampled`. */
export function describeRule(e: EvaluatorRecord): string {
  const parts = [`${e.spanKind} ${e.rootSpansOnly ? "root spans" : "spans"}`];
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
 * incomplete, when its sender dropped attributes.
 */
export function explanationLine(
  r: Pick<MatchExplanationRecord, "matched" | "reason" | "detail"> &
    Partial<Pick<MatchExplanationRecord, "conditions" | "incomplete">> & { run: { outcome: string; skipReason: string | null } | null },
): string {
  const rule = `${r.matched ? "matches" : `does not match (${r.reason})`}: ${r.detail}`;
  const first = r.run ? `${rule}; its run: ${r.run.outcome}${r.run.skipReason ? ` (${r.run.skipReason})` : ""}` : rule;
  const parts = (r.conditions ?? []).map((c) => `  ${c.passed ? "ok" : "NO"}  ${c.condition}${c.key != null ? ` ${c.key}` : ""}: ${c.detail}`);
  return [first, ...parts, ...(r.incomplete ? [`  !   ${r.incomplete}`] : [])].join("\n");
}

function evaluatorText(e: EvaluatorRecord): string {
  const version = e.templateVersion ? `version ${e.templateVersion.version} (${e.followsLatest ? "follows the latest" : `pinned to ${e.pinnedVersion}`})` : "-";
  const set = Object.entries(e.params as Record<string, unknown>);
  return [
    fields([
      ["name", e.name],
      ["id", e.id],
      ["kind", e.kind],
      ["enabled", e.enabled ? "yes" : "no"],
      ["template", e.template?.name ?? "- (external: scores are posted)"],
      ["template version", version],
      ["rule", describeRule(e)],
      ["isolation", e.isolation],
      ["limits", `${limitsText(e.runLimits)}${Object.keys(e.limits ?? {}).length ? " (its own)" : ""}`],
      ["dependencies", e.dependencies.length ? e.dependencies.map((d) => d.dependsOn.name + (d.gate ? ` (gate ${d.gate.score}${d.gate.at !== null ? ` at ${d.gate.at}` : ""})` : "")).join(", ") : "none"],
    ]),
    set.length ? `values set:\n${set.map(([k, v]) => `  ${k} = ${JSON.stringify(v)}`).join("\n")}` : "values set: none (every setting takes its default)",
    `ctx.params: ${JSON.stringify(e.resolvedParams)}`,
  ].join("\n");
}

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
          table(["name", "enabled", "template", "version", "rule", "values"], list.map((e) => [e.name, e.enabled ? "yes" : "no", e.template?.name ?? "(external)", e.templateVersion?.version, describeRule(e), e.params])),
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
      .option("--pin <version|latest>", "stay on a template version, or follow the latest")
      .option("--depends-on <evaluator>", "an evaluator it runs after (repeatable; update replaces the list)", collect)
      .option("--reset-limits", "update: drop its own limits first (its template's, then the defaults, apply)");
  const withLimits = (c: Command) => limitOptions(saveOptions(c));

  withLimits(evaluators.command("create").description("creates an evaluator"))
    .option("--kind <code|external>")
    .addHelpText("after", "\nExample:\n  oodle genai evaluators create --name 'Refund mentioned' --template 'Keyword check' --params '{\"required\": [\"refund\"]}' --attribute app.channel=support")
    .action(
      action(async (ctx) => {
        const e = await ctx.ops.createEvaluator(evaluatorFields(ctx.options));
        emit(ctx.output, e, () => `created evaluator "${e.name}" (${e.id})\n${evaluatorText(e)}`);
      }),
    );

  withLimits(evaluators.command("update <name>").description("changes an evaluator (by name or id); --params sets the given values and keeps the others (--replace-params replaces them all)"))
    .option("--replace-params", "--params replaces every value (the ones not given fall back to their defaults)")
    .addHelpText(
      "after",
      "\nExamples:\n  oodle genai evaluators update 'Refund mentioned' --params '{\"required\": [\"refund\", \"return\"]}'   # keeps mode\n  oodle genai evaluators update 'Refund mentioned' --params '{\"mode\": null}'   # mode back to its default\n  oodle genai evaluators update 'Refund mentioned' --disable",
    )
    .action(
      action(async (ctx, name: string) => {
        const fields = evaluatorFields(ctx.options);
        // Limit flags change the keys given and keep the others (--reset-limits drops them first), as --params does.
        if (ctx.options.resetLimits) fields.limits = { ...(fields.limits as object | undefined) };
        else if (fields.limits !== undefined) fields.limits = { ...((await ctx.ops.getEvaluator(name)).limits as object), ...(fields.limits as object) };
        const fieldsToSave = fields.params !== undefined && !ctx.options.replaceParams ? { ...fields, mergeParams: true } : fields;
        const e = await ctx.ops.updateEvaluator(name, fieldsToSave);
        emit(ctx.output, e, () => `updated evaluator "${e.name}"\n${evaluatorText(e)}`);
      }),
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
