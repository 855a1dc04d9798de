import type { DeclaredDependency } from "../dependencies/input-runs.js";
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
}
