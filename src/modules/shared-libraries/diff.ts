import { FILE_HEADERS_ONLY, formatPatch, structuredPatch, type StructuredPatch, type StructuredPatchHunk } from "diff";

/**
 * The most line edits searched for a shortest diff. Two large, very different sources would
 * otherwise take the Myers search O(N·D) time; past it the diff is one hunk that removes every
 * old line and adds every new one (still exact, only not minimal).
 */
export const MAX_EDIT_LENGTH = 500;

/** The summary and text of a diff. */
export interface UnifiedDiff {
  /** The diff in unified format (`---`/`+++` headers, `@@` hunks); "" when the texts are equal. */
  text: string;
  /** Lines added. */
  added: number;
  /** Lines removed. */
  removed: number;
}

/** The one hunk of a diff from or to an empty text (every line removed, or every line added). */
function wholeHunk(before: string, after: string): StructuredPatchHunk | undefined {
  return structuredPatch("", "", before, after, undefined, undefined, { context: 0 }).hunks[0];
}

/** Every old line removed, then every new line added, in one hunk (past {@link MAX_EDIT_LENGTH}). */
function replaceAll(before: string, after: string, labels: { from: string; to: string }): StructuredPatch {
  const removed = wholeHunk(before, "");
  const added = wholeHunk("", after);
  const hunk: StructuredPatchHunk = {
    oldStart: removed?.oldStart ?? 1,
    oldLines: removed?.oldLines ?? 0,
    newStart: added?.newStart ?? 1,
    newLines: added?.newLines ?? 0,
    lines: [...(removed?.lines ?? []), ...(added?.lines ?? [])],
  };
  return { oldFileName: labels.from, newFileName: labels.to, oldHeader: undefined, newHeader: undefined, hunks: [hunk] };
}

/**
 * The unified diff from `before` to `after`, line by line (the `diff` package's structuredPatch,
 * a Myers diff, bounded by {@link MAX_EDIT_LENGTH}).
 * @param labels the names on the `---` and `+++` lines.
 * @param context lines of context around each change (3 by default, as `diff -u`).
 */
export function unifiedDiff(before: string, after: string, labels: { from: string; to: string }, context = 3): UnifiedDiff {
  if (before === after) return { text: "", added: 0, removed: 0 };
  const patch =
    structuredPatch(labels.from, labels.to, before, after, undefined, undefined, { context, maxEditLength: MAX_EDIT_LENGTH }) ?? replaceAll(before, after, labels);
  const lines = patch.hunks.flatMap((h) => h.lines);
  return {
    text: formatPatch(patch, FILE_HEADERS_ONLY),
    added: lines.filter((l) => l.startsWith("+")).length,
    removed: lines.filter((l) => l.startsWith("-")).length,
  };
}
