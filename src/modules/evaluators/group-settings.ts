import { z } from "zod";
import type { GroupTargetType, TargetType } from "../../lib/closed-lists.js";
import { GroupCapsError, groupCapsSchema, resolveGroupCaps, type GroupCaps } from "./group-caps.js";
import { completionInputSchema, GroupSettingError, resolveCompletion, type CompletionSettings } from "./group-completion.js";

/**
 * An evaluator's group settings (Evaluator.groupSettings): its completion rules (group-completion.ts) and
 * the caps on what its code is passed. One schema for GraphQL, the CLI and MCP.
 */

/** What an evaluator may ask: completion rules and caps, every key optional (unknown keys refused). */
export const groupSettingsInputSchema = completionInputSchema.extend(groupCapsSchema.shape).strict();
/** Group settings as asked. */
export type GroupSettingsInput = z.infer<typeof groupSettingsInputSchema>;

/** Group settings resolved: every value as it applies. */
export interface GroupSettings extends CompletionSettings, GroupCaps {}

/**
 * The settings of a trace or session evaluator as they apply: what it asked, each absent key its default.
 * @throws GroupSettingError naming the field (out of range, or not for this target).
 */
export function resolveGroupSettings(target: GroupTargetType, asked: GroupSettingsInput): GroupSettings {
  const { maxSpans, maxTurns, maxDocumentBytes } = asked;
  let caps: Readonly<GroupCaps>;
  try {
    caps = resolveGroupCaps({ ...(maxSpans !== undefined ? { maxSpans } : {}), ...(maxTurns !== undefined ? { maxTurns } : {}), ...(maxDocumentBytes !== undefined ? { maxDocumentBytes } : {}) });
  } catch (error) {
    if (error instanceof GroupCapsError) throw new GroupSettingError(error.cap, error.message);
    throw error;
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
