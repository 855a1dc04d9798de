import type { DeclaredDependency } from "../dependencies/input-runs.js";
import { objectOf } from "../../lib/json-column.js";
import { blockedSkipReason } from "../evaluators/blocking.js";
import type { RunnableVersion } from "./prepare.js";

export type { RunnableVersion };

/**
 * The evaluator as one batch runs it, whichever driver built it (a live evaluator at its current
 * version, an experiment's or backfill's member fixed at creation, a tryCode draft).
 */
export interface EvaluationSubject {
  workspaceId: string;
  /** The evaluator (null: a tryCode draft); for logs. */
  evaluatorId: string | null;
  /** The evaluator's kind (`code`, `external`): picks the executor (executors.ts). */
  kind: string;
  /** The template version run (its id is what runs record; a draft has an id of its own). */
  version: RunnableVersion;
  /** The shared libraries the source imports directly, when already known (a draft's inspection). */
  imports?: string[];
  /** `ctx.params`, resolved (value → default → null). */
  params: Record<string, unknown>;
  /** "strict" for a fresh fork per item; anything else runs in warm runners. */
  isolation: string;
  /** The evaluator's own limits and its template's, as stored (JSON `{cpuTimeMs?, wallTimeMs?, memoryBytes?}`); the evaluator's win key by key. */
  limits: { own: unknown; template: unknown };
  /**
   * The declared dependencies (names, gates) read on every target; null for a draft, whose
   * `ctx.score` reads whatever scores its sample document carries.
   */
  dependencies: readonly DeclaredDependency[] | null;
  /** Who may share a warm runner with it (`evaluator:<id>`, `tryCode:<api key>`). */
  trustDomain: string;
  /** A judge's connection (Evaluator.connectionId); null or absent for other kinds. */
  connectionId?: string | null;
  /** Set while the evaluator is blocked (Evaluator.blockedReason): every target is skipped with it. */
  blockedReason?: string | null;
}

/** An experiment's or backfill's member, fixed at creation: its version and `ctx.params`, and its evaluator's run settings now. */
export interface FixedMember {
  templateVersion: RunnableVersion;
  /** `ctx.params` resolved at creation (JSON object). */
  params: unknown;
  evaluator: { kind: string; isolation: string; limits: unknown; template: { limits: unknown } | null; connectionId?: string | null; blockedAt?: Date | null; blockedReason?: string | null };
}

/** The subject of a fixed member (experiments and backfills run the same member the same way). */
export function memberSubject(workspaceId: string, evaluatorId: string, member: FixedMember, dependencies: readonly DeclaredDependency[]): EvaluationSubject {
  return {
    workspaceId, evaluatorId, kind: member.evaluator.kind, version: member.templateVersion, params: objectOf(member.params), isolation: member.evaluator.isolation,
    limits: { own: member.evaluator.limits, template: member.evaluator.template?.limits }, dependencies, trustDomain: `evaluator:${evaluatorId}`,
    connectionId: member.evaluator.connectionId ?? null, blockedReason: blockedSkipReason(member.evaluator),
  };
}

