import { evaluatorLimitsSchema } from "../../execution/index.js";
import { z } from "zod";
import {
  attributeContainsSchema,
  attributeEqualsSchema,
  evaluatorNameSchema,
  groupSettingsSchema,
  isolationSchema,
  pinnedVersionSchema,
  resourceAttributeEqualsSchema,
  rootSpansOnlySchema,
  samplingRateSchema,
  spanKindSchema,
  targetSchema,
} from "../../modules/evaluators/schemas.js";
import { dependenciesInputSchema } from "../../modules/dependencies/schemas.js";
import { EVALUATOR_KINDS, TEMPLATE_KINDS } from "../../lib/closed-lists.js";
import { maxCostPerHourUsdSchema } from "../../modules/evaluators/schemas.js";
import { judgeDefinitionSchema } from "../../modules/judges/definition.js";
import { sourceCodeSchema, templateDescriptionSchema, templateNameSchema } from "../../modules/templates/schemas.js";
import type { Operations } from "../../api-client/operations.js";
import { blockedText, groupSettingsRows } from "../../cli/commands/evaluators.js";
import { describeJudgeScore } from "../../cli/commands/templates.js";
import { badArguments, toolResult } from "../results.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

const ACTIONS = [
  "list_evaluators",
  "get_evaluator",
  "create_evaluator",
  "update_evaluator",
  "delete_evaluator",
  "unblock_evaluator",
  "list_templates",
  "get_template",
  "create_template",
  "update_template",
  "delete_template",
  "list_starters",
  "get_starter",
] as const;

/** The arguments of manage_genai_evaluators: the modules' own field schemas, every one optional but `action`. */
// Strict: a misspelt argument is refused by name, as the CLI and GraphQL refuse it, never dropped.
export const manageEvaluatorsInput = z.strictObject({
  action: z.enum(ACTIONS).describe("What to do. Evaluators and templates are named by `name` (or `id`)."),
  name: z.string().describe("The evaluator or template to get, update or delete, by name; for create_*, the new name.").optional(),
  id: z.string().describe("Instead of name: the global id.").optional(),
  newName: evaluatorNameSchema.describe("update_*: rename to this.").optional(),
  params: z
    .unknown()
    .describe("Evaluators: the setting values {setting name: value}; update_evaluator sets the given ones and keeps the others (null removes one; replaceParams: true replaces them all). Templates: the settings list [{name, type, label, description, default, required, options}].")
    .optional(),
  replaceParams: z.boolean().describe("update_evaluator: params replaces every value instead of being merged into them (default false).").optional(),
  templateName: templateNameSchema.describe("create_evaluator / update_evaluator: the template it runs, by name (or templateId).").optional(),
  templateId: z.string().describe("The template's global id.").optional(),
  enabled: z.boolean().describe("Evaluators: whether it runs on live spans.").optional(),
  kind: z
    .enum([...new Set([...EVALUATOR_KINDS, ...TEMPLATE_KINDS])] as [string, ...string[]], { error: `must be one of ${[...new Set([...EVALUATOR_KINDS, ...TEMPLATE_KINDS])].join(", ")}` })
    .describe(
      `create_template: ${TEMPLATE_KINDS.join(" or ")} (code: Python in sourceCode, the default; llm: a judge, give judge instead of sourceCode). ` +
        `create_evaluator: ${EVALUATOR_KINDS.join(", ")} (default: from the template: judge for an llm template; external: no template, scores are posted).`,
    )
    .optional(),
  judge: judgeDefinitionSchema
    .describe(
      "create_template / update_template of an llm template (a judge): {messages: [{role: system|user|assistant, content}], output: [{name, type: boolean|numeric|categorical, min, max, values, higherIsBetter, description}], maxOutputTokens?, cacheTtlSeconds?}. " +
        "Messages use {{input}}, {{output}}, {{expected}}, {{context}}, {{metadata}}, {{spans}}, {{turns}} (fenced as data) and {{params.NAME}}; settings named model (string) and temperature (number) pick the model and temperature. A new judge makes version N+1.",
    )
    .optional(),
  connectionName: z.string().describe("create_evaluator / update_evaluator of a judge: the connection to an LLM provider its calls use, by name (genai_connections list). Required for a judge.").optional(),
  connectionId: z.string().describe("Instead of connectionName: the connection's global id.").optional(),
  maxCostPerHourUsd: maxCostPerHourUsdSchema.describe("create_evaluator / update_evaluator of a judge: the spend cap, US dollars of judge calls on live targets per rolling hour; past it runs are skipped with the reason. null removes it.").optional(),
  spanKind: spanKindSchema.describe("Evaluators: the kind of span it runs on (default chat).").optional(),
  spanNamePattern: z.string().nullable().describe("Evaluators: a glob over span names; null matches every name.").optional(),
  attributeEquals: attributeEqualsSchema.describe("Evaluators: span attributes that must be equal.").optional(),
  attributeContains: attributeContainsSchema.describe('Evaluators: list attributes (tags) that must contain the value, e.g. {"tag.tags": "vip"}.').optional(),
  resourceAttributeEquals: resourceAttributeEqualsSchema.describe('Evaluators: resource attributes that must be equal, e.g. {"deployment.environment": "production"}.').optional(),
  rootSpansOnly: rootSpansOnlySchema.describe("Evaluators: run on root spans only (no parent span).").optional(),
  limits: evaluatorLimitsSchema
    .nullable()
    .describe("Evaluators and templates: sandbox limits of one item {cpuTimeMs?, wallTimeMs?, memoryBytes?} within the ceilings; replaces the earlier ones (null clears them).")
    .optional(),
  samplingRate: samplingRateSchema.describe("Evaluators: the share of matching spans evaluated, 0 to 1.").optional(),
  isolation: isolationSchema.describe("Evaluators: warm (default) or strict.").optional(),
  pinnedVersion: pinnedVersionSchema.describe("Evaluators: stay on this template version; null follows the latest.").optional(),
  dependencies: dependenciesInputSchema.describe("Evaluators: the evaluators it runs after, each optionally a gate (a span evaluator cannot depend on a trace or session evaluator; a trace or session evaluator depends on span evaluators only).").optional(),
  target: targetSchema
    .describe("create_evaluator: what it runs on: span (default), trace or session (the whole group, once done; taken when any of its spans matches the rule). Fixed once created; external evaluators run on spans only.")
    .optional(),
  groupSettings: groupSettingsSchema
    .describe(
      "Trace and session evaluators: {quietPeriodMs?, maxWaitMs?, endMarkerAttribute?, endOnRootSpan? (traces), sessionKeyAttribute? (sessions), maxSpans?, maxTurns? (sessions), maxDocumentBytes?}; absent keys take their defaults (get_evaluator shows the values that apply). update_evaluator replaces the earlier ones (null: every default).",
    )
    .optional(),
  sourceCode: sourceCodeSchema.describe("Code templates: Python defining evaluate(ctx) (an llm template gives judge instead).").optional(),
  description: templateDescriptionSchema.describe("Templates: a description.").optional(),
  libraryPins: z.record(z.string(), z.number()).describe("Templates: shared-library pins {library name: version}.").optional(),
  starterId: z.string().describe("get_starter: the starter's id; create_template: copy this starter.").optional(),
});

/** The tool's arguments. */
export type ManageEvaluatorsArgs = z.infer<typeof manageEvaluatorsInput>;

const EVALUATOR_FIELDS = ["params", "templateName", "templateId", "connectionName", "connectionId", "maxCostPerHourUsd", "enabled", "kind", "spanKind", "spanNamePattern", "attributeEquals", "attributeContains", "resourceAttributeEquals", "rootSpansOnly", "limits", "samplingRate", "isolation", "pinnedVersion", "dependencies", "target", "groupSettings"] as const;
const TEMPLATE_FIELDS = ["params", "sourceCode", "judge", "description", "libraryPins", "limits"] as const;

/** A kind given to the wrong action (a template kind to create_evaluator, an evaluator kind to create_template), refused by name. */
function checkKind(args: ManageEvaluatorsArgs, allowed: readonly string[]): void {
  if (args.kind !== undefined && !allowed.includes(args.kind)) throw badArguments([{ path: "kind", message: `${args.action}: must be one of ${allowed.join(", ")}` }]);
}

/** A template for people: name, kind, version and settings; an llm template's output definition and message roles. */
function templateLine(t: Awaited<ReturnType<Operations["getTemplate"]>>): string {
  const settings = t.latestVersion.params.map((p) => `${p.name} (${p.type})`).join(", ") || "none";
  const base = `${t.name} (${t.kind}) version ${t.latestVersionNumber}; settings: ${settings}`;
  if (t.kind !== "llm") return base;
  const judge = (t.latestVersion.judge ?? {}) as { messages?: { role: string; content: string }[]; output?: Record<string, unknown>[] };
  return `${base}; judge output: ${(judge.output ?? []).map((o) => describeJudgeScore(o)).join("; ")}; messages: ${(judge.messages ?? []).map((m) => `${m.role} (${m.content.length} characters)`).join(", ")}`;
}

function pick(args: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => args[k] !== undefined).map((k) => [k, args[k]]));
}

function target(args: ManageEvaluatorsArgs, what: string): string {
  const ref = args.id ?? args.name;
  if (!ref) throw badArguments([{ path: "name", message: `is required: the ${what} to ${args.action.split("_")[0]}` }]);
  return ref;
}

/** How to unblock an evaluator with this tool. */
const MCP_UNBLOCK = (name: string) => `{"action": "unblock_evaluator", "name": ${JSON.stringify(name)}}`;

/** manage_genai_evaluators: evaluators, templates and starters, through the same GraphQL operations as the CLI. */
export const manageEvaluatorsTool = {
  name: "manage_genai_evaluators",
  description:
    "Manage Oodle evaluators and templates of your workspace. Actions: list/get/create/update/delete/unblock _evaluator (by name; unblock_evaluator clears the block a terminal provider error set, shown as blockedAt/blockedReason), list/get/create/update/delete _template (by name), list_starters, get_starter. " +
    "A template is code (Python in sourceCode, run in the sandbox) or llm: a judge, whose chat messages (filled from the span, untrusted text fenced as data) go to an LLM through a connection and whose answer must match its output definition (the scores: boolean, numeric or categorical). " +
    'An llm template: {"action": "create_template", "name": "Politeness", "kind": "llm", "judge": {"messages": [{"role": "user", "content": "Is this reply polite?\\n{{output}}"}], "output": [{"name": "polite", "type": "boolean", "higherIsBetter": true}]}, "params": [{"name": "model", "type": "string", "default": "gpt-4o-mini"}]}; ' +
    'its evaluator is a judge and names a connection: {"action": "create_evaluator", "name": "Politeness judge", "templateName": "Politeness", "connectionName": "openai", "maxCostPerHourUsd": 2}. ' +
    'Example: {"action": "update_evaluator", "name": "Refund mentioned", "params": {"required": ["refund", "return"]}}. A settings change that an evaluator\'s values would break is refused (CONFLICT) naming the evaluators.',
  inputSchema: manageEvaluatorsInput,
  async run(ops: Operations, args: ManageEvaluatorsArgs): Promise<CallToolResult> {
    const raw = args as Record<string, unknown>;
    switch (args.action) {
      case "list_evaluators": {
        const list = await ops.listEvaluators({ template: args.templateName ?? args.templateId });
        return toolResult(list, list.length ? list.map((e) => `${e.name} (${e.template?.name ?? "external"}; values ${JSON.stringify(e.params)})${e.blockedAt ? ` ${blockedText(e, MCP_UNBLOCK(e.name))}` : ""}`).join("\n") : "no evaluators");
      }
      case "get_evaluator": {
        const e = await ops.getEvaluator(target(args, "evaluator"));
        const group = e.groupSettings ? `; target ${e.target}, ${groupSettingsRows(e.target, e.groupSettings).map(([k, v]) => `${k}: ${v}`).join("; ")}` : "";
        const judge = e.connection || e.maxCostPerHourUsd !== null ? `; connection ${e.connection ? `${e.connection.name} (${e.connection.provider}, default model ${e.connection.defaultModel})` : "none"}, spend cap ${e.maxCostPerHourUsd !== null ? `$${e.maxCostPerHourUsd}/hour` : "none"}` : "";
        const blocked = e.blockedAt ? `; ${blockedText(e, MCP_UNBLOCK(e.name))}` : "";
        return toolResult(e, `${e.name} (${e.kind}): template ${e.template?.name ?? "-"} version ${e.templateVersion?.version ?? "-"}, values ${JSON.stringify(e.params)}, ctx.params ${JSON.stringify(e.resolvedParams)}${judge}${group}${blocked}`);
      }
      case "create_evaluator": {
        if (!args.name) throw badArguments([{ path: "name", message: "is required: the new evaluator's name" }]);
        checkKind(args, EVALUATOR_KINDS);
        const e = await ops.createEvaluator({ name: args.name, ...pick(raw, EVALUATOR_FIELDS) });
        return toolResult(e, `created evaluator "${e.name}" with values ${JSON.stringify(e.params)}${e.target !== "span" ? ` (target ${e.target}, group settings ${JSON.stringify(e.groupSettings)})` : ""}`);
      }
      case "update_evaluator": {
        if (args.kind !== undefined) throw badArguments([{ path: "kind", message: "update_evaluator: an evaluator's kind never changes" }]);
        const merge = args.params !== undefined && args.replaceParams !== true ? { mergeParams: true } : {};
        const e = await ops.updateEvaluator(target(args, "evaluator"), { ...pick(raw, EVALUATOR_FIELDS), ...merge, ...(args.newName ? { name: args.newName } : {}) });
        return toolResult(e, `updated evaluator "${e.name}": values ${JSON.stringify(e.params)}, ctx.params ${JSON.stringify(e.resolvedParams)}`);
      }
      case "delete_evaluator": {
        const e = await ops.deleteEvaluator(target(args, "evaluator"));
        return toolResult(e, `deleted evaluator "${e.name}"`);
      }
      case "unblock_evaluator": {
        const before = await ops.getEvaluator(target(args, "evaluator"));
        const e = await ops.unblockEvaluator(before.id);
        return toolResult(e, before.blockedAt ? `unblocked evaluator "${e.name}" (blocked since ${String(before.blockedAt)}: ${before.blockedReason ?? "no reason was recorded"})` : `evaluator "${e.name}" was not blocked`);
      }
      case "list_templates": {
        const list = await ops.listTemplates();
        return toolResult(list, list.length ? list.map((t) => `${t.name} v${t.latestVersionNumber} (${t.kind}; settings: ${t.latestVersion.params.map((p) => p.name).join(", ") || "none"})`).join("\n") : "no templates");
      }
      case "get_template": {
        const t = await ops.getTemplate(target(args, "template"));
        return toolResult(t, templateLine(t));
      }
      case "create_template": {
        checkKind(args, TEMPLATE_KINDS);
        // A judge given without a kind makes an llm template (the judge is what an llm template holds).
        const kind = args.kind ?? (args.judge !== undefined ? "llm" : undefined);
        const t = args.starterId
          ? await ops.createTemplateFromStarter({ starterId: args.starterId, name: args.name, description: args.description })
          : await ops.createTemplate({ name: args.name, ...(kind !== undefined ? { kind } : {}), ...pick(raw, TEMPLATE_FIELDS) });
        return toolResult(t, `created ${t.kind} template "${t.name}" version ${t.latestVersionNumber}`);
      }
      case "update_template": {
        if (args.kind !== undefined) throw badArguments([{ path: "kind", message: "update_template: a template's kind never changes" }]);
        const t = await ops.updateTemplate(target(args, "template"), { ...pick(raw, TEMPLATE_FIELDS), ...(args.newName ? { name: args.newName } : {}) });
        return toolResult(t, `template "${t.name}" is at version ${t.latestVersionNumber}`);
      }
      case "delete_template": {
        const t = await ops.deleteTemplate(target(args, "template"));
        return toolResult(t, `deleted template "${t.name}"`);
      }
      case "list_starters": {
        const list = await ops.listStarters();
        return toolResult(list, list.map((s) => `${s.id}: ${s.settingNames.join(", ") || "no settings"}`).join("\n"));
      }
      case "get_starter": {
        const id = args.starterId ?? args.id ?? args.name;
        if (!id) throw badArguments([{ path: "starterId", message: "is required: the starter's id (see list_starters)" }]);
        const s = await ops.getStarter(id);
        return toolResult(s, s.file);
      }
    }
  },
};
