import { z } from "zod";

/** A span document's `trace.spans` holds at most this many (spans/service.ts MAX_TRACE_SPANS; test/groups/documents.test.ts keeps them equal). */
const TRACE_SPANS_DEFAULT = 500;

/**
 * Caps on what a trace or session document passes to the code (docs/document.md § From a trace,
 * § From a session), as data. Units are in the names: `maxSpans` and `maxTurns` are counts,
 * `maxDocumentBytes` is bytes of UTF-8 JSON. Every cap has a default and a ceiling: an evaluator
 * may lower a cap or raise it up to its ceiling, never past it. A document that a cap shortened
 * says so (`trace.capped`, `session.capped`).
 */
export interface GroupCaps {
  /** Spans of the trace (a session: of all its traces) in the document (count). */
  maxSpans: number;
  /** Turns of a session's conversation in the document, the latest kept (count). */
  maxTurns: number;
  /** The document's size as JSON (bytes of UTF-8). */
  maxDocumentBytes: number;
}

/** One cap's default and ceiling (and its least value, 1). */
interface CapSpec {
  min: number;
  default: number;
  ceiling: number;
}

const MiB = 1024 * 1024;

/**
 * Defaults and ceilings of every cap (see {@link GroupCaps} for units).
 *
 * - `maxSpans`: default 500 (MAX_TRACE_SPANS, what a span document's `trace.spans` holds
 *   at most), ceiling 5,000.
 * - `maxTurns`: default 200, ceiling 2,000.
 * - `maxDocumentBytes`: default 1 MiB (try_code's inline document, MAX_DOCUMENT_BYTES), ceiling
 *   8 MiB. The sandbox reads one batch of items as one frame of at most 64 MiB
 *   (sandbox/runner_protocol.py `MAX_FRAME_BYTES`) and parses it inside the runner's memory limit
 *   (256 MiB by default, src/execution/limits.ts): 8 MiB keeps one document well below both; a
 *   batch of several documents at the ceiling is the caller's to bound.
 */
export const GROUP_CAP_SPECS: Readonly<Record<keyof GroupCaps, CapSpec>> = {
  maxSpans: { min: 1, default: TRACE_SPANS_DEFAULT, ceiling: 5_000 },
  maxTurns: { min: 1, default: 200, ceiling: 2_000 },
  maxDocumentBytes: { min: 1, default: 1 * MiB, ceiling: 8 * MiB },
};

/** The default caps (what an evaluator that asks for none gets). */
export const GROUP_CAPS: Readonly<GroupCaps> = Object.freeze({
  maxSpans: GROUP_CAP_SPECS.maxSpans.default,
  maxTurns: GROUP_CAP_SPECS.maxTurns.default,
  maxDocumentBytes: GROUP_CAP_SPECS.maxDocumentBytes.default,
});

const capNames = Object.keys(GROUP_CAP_SPECS) as (keyof GroupCaps)[];

const UNITS: Readonly<Record<keyof GroupCaps, string>> = { maxSpans: "span", maxTurns: "turn", maxDocumentBytes: "byte" };
const unitOf = (name: keyof GroupCaps, value: number): string =>
  `${value} ${UNITS[name]}${value === 1 ? "" : "s"}${name === "maxDocumentBytes" && value % MiB === 0 ? ` (${value / MiB} MiB)` : ""}`;

/** One cap: a whole number in [min, ceiling] of its spec, the error naming the cap and the rule. */
const capField = (name: keyof GroupCaps) => {
  const spec = GROUP_CAP_SPECS[name];
  return z
    .number({ error: `${name}: must be a whole number` })
    .int(`${name}: must be a whole number`)
    .min(spec.min, `${name}: must be at least ${unitOf(name, spec.min)}`)
    .max(spec.ceiling, `${name}: must be at most ${unitOf(name, spec.ceiling)} (its ceiling)`);
};

/**
 * What an evaluator may ask for: `{maxSpans?, maxTurns?, maxDocumentBytes?}`, each a whole number
 * from 1 to its ceiling ({@link GROUP_CAP_SPECS}); an absent cap is its default, any other key is
 * refused by name. Messages start with the cap's name (`maxSpans: must be at most 5000 spans (its ceiling)`).
 */
export const groupCapsSchema = z.strictObject(
  {
    maxSpans: capField("maxSpans").describe(`Spans in the document (a session: across its traces): 1 to ${GROUP_CAP_SPECS.maxSpans.ceiling}, default ${GROUP_CAP_SPECS.maxSpans.default}.`).optional(),
    maxTurns: capField("maxTurns").describe(`Turns of a session's conversation, the latest kept: 1 to ${GROUP_CAP_SPECS.maxTurns.ceiling}, default ${GROUP_CAP_SPECS.maxTurns.default}.`).optional(),
    maxDocumentBytes: capField("maxDocumentBytes")
      .describe(`The document's size as JSON (bytes): 1 to ${GROUP_CAP_SPECS.maxDocumentBytes.ceiling / MiB} MiB, default ${GROUP_CAP_SPECS.maxDocumentBytes.default / MiB} MiB.`)
      .optional(),
  },
  { error: (issue) => (issue.code === "unrecognized_keys" ? `unknown cap(s) ${issue.keys.join(", ")} (the caps are ${capNames.join(", ")})` : "must be an object {maxSpans?, maxTurns?, maxDocumentBytes?}") },
);

/** What an evaluator asks for (each cap optional). */
export type GroupCapsAsked = z.infer<typeof groupCapsSchema>;

/** Thrown by {@link resolveGroupCaps} for caps that break {@link groupCapsSchema}; `cap` names the first bad one. */
export class GroupCapsError extends Error {
  constructor(
    readonly cap: string,
    message: string,
  ) {
    super(message);
    this.name = "GroupCapsError";
  }
}

/**
 * The effective caps: what was asked, else the default, cap by cap.
 * @param asked - caps to change (undefined or null: all defaults); each a whole number in [1, ceiling].
 * @returns all three caps, frozen.
 * @throws GroupCapsError naming the first cap that is unknown, not a whole number, below 1 or above its ceiling.
 */
export function resolveGroupCaps(asked: Partial<GroupCaps> | null | undefined = {}): Readonly<GroupCaps> {
  const parsed = groupCapsSchema.safeParse(asked ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue?.path[0] ?? (issue?.code === "unrecognized_keys" ? issue.keys[0] : "caps"));
    throw new GroupCapsError(name, issue?.message ?? `${name}: invalid`);
  }
  const result = {} as GroupCaps;
  for (const name of capNames) result[name] = parsed.data[name] ?? GROUP_CAP_SPECS[name].default;
  return Object.freeze(result);
}
