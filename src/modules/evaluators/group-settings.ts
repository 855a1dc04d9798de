import { z } from "zod";
import type { GroupTargetType, TargetType } from "../../lib/closed-lists.js";
import { completionInputSchema, GroupSettingError, resolveCompletion, type CompletionSettings } from "./group-completion.js";

/**
 * An evaluator's group settings (Evaluator.groupSettings): its completion rules (group-completion.ts) and
 * the caps on what its code is passed. One schema for GraphQL, the CLI and MCP.
 */

/** The caps of a group document: spans, turns and bytes (each with a default and a ceiling). */
export interface GroupCaps {
  /** Spans passed in the document (the earliest kept). */
  maxSpans: number;
  /** Turns of a session's conversation passed (the latest kept). */
  maxTurns: number;
  /** Bytes of the document as JSON (UTF-8). */
  maxDocumentBytes: number;
}

const MiB = 1024 * 1024;

/** Each cap's default and ceiling. */
export const GROUP_CAP_SPECS: Readonly<Record<keyof GroupCaps, { default: number; ceiling: number }>> = {
  maxSpans: { default: 500, ceiling: 5_000 },
  maxTurns: { default: 200, ceiling: 2_000 },
  maxDocumentBytes: { default: 1 * MiB, ceiling: 8 * MiB },
};

const positive = z.number().int("must be a whole number").positive("must be at least 1");

/** What an evaluator may ask: completion rules and caps, every key optional (unknown keys refused). */
export const groupSettingsInputSchema = completionInputSchema.extend({ maxSpans: positive.optional(), maxTurns: positive.optional(), maxDocumentBytes: positive.optional() }).strict();
/** Group settings as asked. */
export type GroupSettingsInput = z.infer<typeof groupSettingsInputSchema>;

/** Group settings resolved: every value as it applies. */
export interface GroupSettings extends CompletionSettings, GroupCaps {}

/**
 * The settings of a trace or session evaluator as they apply: what it asked, each absent key its default.
 * @throws GroupSettingError naming the field (out of range, or not for this target).
 */
export function resolveGroupSettings(target: GroupTargetType, asked: GroupSettingsInput): GroupSettings {
  const caps = {} as GroupCaps;
  for (const name of Object.keys(GROUP_CAP_SPECS) as (keyof GroupCaps)[]) {
    const spec = GROUP_CAP_SPECS[name];
    const value = asked[name] ?? spec.default;
    if (value > spec.ceiling) throw new GroupSettingError(name, `${name} must be at most ${spec.ceiling}; got ${value}`);
    caps[name] = value;
  }
  if (target === "trace" && asked.maxTurns !== undefined) throw new GroupSettingError("maxTurns", "maxTurns applies to session evaluators only");
  return { ...resolveCompletion(target, asked), ...caps };
}

/**
 * Checks what an evaluator of `target` asks: a span evaluator asks nothing (`{}`).
 * @returns the settings to store (as asked, validated).
 * @throws GroupSettingError naming the field.
 */
export function checkGroupSettings(target: TargetType, asked: unknown): GroupSettingsInput {
  const parsed = groupSettingsInputSchema.safeParse(asked ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.length ? String(issue.path[0]) : (issue.code === "unrecognized_keys" ? String(issue.keys[0]) : "groupSettings");
    throw new GroupSettingError(field, `groupSettings.${field}: ${issue.message}`);
  }
  if (target === "span") {
    const keys = Object.keys(parsed.data);
    if (keys.length) throw new GroupSettingError(keys[0]!, `${keys[0]} applies to trace and session evaluators only (this evaluator's target is span)`);
    return {};
  }
  resolveGroupSettings(target, parsed.data);
  return parsed.data;
}

/** The stored settings of an evaluator as they apply (stored values were checked when saved). */
export function settingsOf(target: GroupTargetType, stored: unknown): GroupSettings {
  const parsed = groupSettingsInputSchema.safeParse(stored ?? {});
  return resolveGroupSettings(target, parsed.success ? parsed.data : {});
}
