import type { Outcome } from "../lib/outcomes.js";
import type { EvaluatorLimits } from "./evaluator-limits.js";
import type { Score } from "./result-validation.js";

/** Identifies what a runner serves. Runners are reused only for an identical key. */
export interface ExecuteKey {
  /** The workspace whose evaluator runs; a runner never serves another workspace. */
  workspaceId: string;
  /** The template version being run (part of the pool key). */
  templateVersionId: string;
  /** The evaluator's Python source. */
  sourceCode: string;
  /** Shared libraries resolved for this template version: name → pinned version and source. */
  libraries: Record<string, { version: number; source: string }>;
  /** "warm": items run in one long-lived process; "strict": a fresh forked child per item. */
  mode: "warm" | "strict";
  /**
   * Who may share a warm runner (part of the pool key): a runner keeps interpreter state between
   * items, so it serves one trust domain only, e.g. `evaluator:<id>` for live runs and
   * experiments, `tryCode:<apiKeyId>` for drafts. Absent: every caller of this key shares.
   */
  trustDomain?: string;
  /**
   * The CPU time, wall time and memory this evaluator asks for (evaluator-limits.ts), within the
   * ceilings; part of the pool key (a runner's rlimits are set at its start). Absent: the defaults.
   */
  limits?: EvaluatorLimits;
}

/** One thing to evaluate: the sample document (docs/document.md) plus settings and dependencies. */
export interface ExecuteItem {
  /** Must equal the key's workspaceId, or the whole call is refused. */
  workspaceId: string;
  /** The sample document (input, output, attributes, expected_output, trace, scores, metadata). */
  document: Record<string, unknown>;
  /** Resolved settings (`ctx.params`). */
  params?: Record<string, unknown>;
  /** Names of evaluators whose scores `ctx.score` may read; null/absent = every given one. */
  dependencies?: string[] | null;
}

/** What went wrong, in terms the evaluator's author can act on. */
export interface ItemError {
  /** Exception type name, e.g. "ZeroDivisionError", or a sandbox reason such as "ItemTimeout". */
  type: string;
  /** The exception message (capped at 4,000 characters). */
  message: string;
  /** Traceback limited to the user's own frames ("<evaluator>", "<shared/name>"); may be "". */
  traceback: string;
}

/** The result of one item. */
export interface ItemResult {
  outcome: Outcome;
  /** Validated scores; empty unless `outcome` is "ok". */
  scores: Score[];
  /** What the item printed to stdout (capped with stderr at `outputBytes`). */
  stdout: string;
  /** What the item printed to stderr. */
  stderr: string;
  /** Present unless `outcome` is "ok". */
  error?: ItemError;
  /** Wall-clock time of the item as seen by Node (ms). */
  durationMs: number;
}

/** Thrown by `execute` when an item belongs to another workspace than the key; nothing runs. */
export class WorkspaceMismatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WorkspaceMismatchError";
  }
}
