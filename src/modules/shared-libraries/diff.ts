/**
 * A small line-based unified diff (no dependency): Myers' O((N+M)·D) shortest edit script on the
 * lines between the common prefix and suffix, printed like `diff -u` with 3 lines of context.
 */

/** One line of an edit script: kept (" "), removed ("-") or added ("+"). */
interface Edit {
  op: " " | "-" | "+";
  line: string;
}

/** Lines kept with their terminator, so "x" and "x\n" differ (shown as "\ No newline at end of file"). */
function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n").map((line) => `${line}\n`);
  if (text.endsWith("\n")) lines.pop();
  else lines[lines.length - 1] = lines[lines.length - 1]!.slice(0, -1);
  return lines;
}

/** Above this many differences (after the common prefix and suffix), the middle is shown as one replacement. */
const MAX_EDIT_DISTANCE = 2_000;

/**
 * The shortest edit script from `a` to `b` (Myers 1986), or null when it needs more than
 * `MAX_EDIT_DISTANCE` insertions and deletions (memory grows with its square).
 */
function myers(a: number[], b: number[]): Edit[] | null {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, MAX_EDIT_DISTANCE);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  // trace[d]: the frontier before step d, diagonals -d-1..d+1 only (memory grows as D², not D·(N+M)).
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, d, n, m);
    }
  }
  return null;
}

/** Walks the saved frontiers back from (n, m) to (0, 0). Lines are filled in by the caller. */
function backtrack(trace: Int32Array[], dEnd: number, n: number, m: number): Edit[] {
  const ops: (" " | "-" | "+")[] = [];
  let x = n;
  let y = m;
  for (let d = dEnd; d > 0; d--) {
    const v = trace[d]!; // the frontier before step d; diagonal k is at index k + d + 1
    const at = (k: number) => v[k + d + 1]!;
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push(" ");
      x--;
      y--;
    }
    ops.push(down ? "+" : "-");
    x = prevX;
    y = prevY;
  }
  while (x > 0 && y > 0) {
    ops.push(" ");
    x--;
    y--;
  }
  return ops.reverse().map((op) => ({ op, line: "" }));
}

/** The edit script of two line lists: common prefix and suffix kept, Myers in between. */
function editScript(a: string[], b: string[]): Edit[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const ids = new Map<string, number>();
  const idOf = (line: string) => {
    let id = ids.get(line);
    if (id === undefined) ids.set(line, (id = ids.size));
    return id;
  };
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  const script = myers(midA.map(idOf), midB.map(idOf));
  const middle: Edit[] = [];
  if (script) {
    let i = 0;
    let j = 0;
    for (const { op } of script) {
      if (op === " ") {
        middle.push({ op, line: midA[i++]! });
        j++;
      } else if (op === "-") middle.push({ op, line: midA[i++]! });
      else middle.push({ op, line: midB[j++]! });
    }
  } else {
    for (const line of midA) middle.push({ op: "-", line });
    for (const line of midB) middle.push({ op: "+", line });
  }
  return [
    ...a.slice(0, start).map((line): Edit => ({ op: " ", line })),
    ...middle,
    ...a.slice(endA).map((line): Edit => ({ op: " ", line })),
  ];
}

/** A hunk range as `diff -u` prints it: `start,count`, `start` alone when count is 1. */
function range(start: number, count: number): string {
  if (count === 1) return String(start);
  return `${count === 0 ? start - 1 : start},${count}`;
}

/** The summary and text of a diff. */
export interface UnifiedDiff {
  /** The diff in unified format (`---`/`+++` headers, `@@` hunks); "" when the texts are equal. */
  text: string;
  /** Lines added. */
  added: number;
  /** Lines removed. */
  removed: number;
}

/**
 * The unified diff from `before` to `after`, line by line, as `diff -u` prints it.
 * @param labels the names on the `---` and `+++` lines.
 * @param context lines of context around each change (3 by default).
 */
export function unifiedDiff(before: string, after: string, labels: { from: string; to: string }, context = 3): UnifiedDiff {
  const a = splitLines(before);
  const b = splitLines(after);
  const edits = editScript(a, b);
  const added = edits.filter((e) => e.op === "+").length;
  const removed = edits.filter((e) => e.op === "-").length;
  if (added === 0 && removed === 0) return { text: "", added, removed };

  // Group changes into hunks: a change and its context; hunks closer than 2·context merge.
  const changed = edits.map((e, i) => (e.op === " " ? -1 : i)).filter((i) => i >= 0);
  const groups: [number, number][] = [];
  for (const i of changed) {
    const lo = Math.max(0, i - context);
    const hi = Math.min(edits.length - 1, i + context);
    const lastGroup = groups[groups.length - 1];
    if (lastGroup && lo <= lastGroup[1] + 1) lastGroup[1] = hi;
    else groups.push([lo, hi]);
  }

  // Line numbers (1-based) in a and b at each edit index.
  const posA: number[] = [];
  const posB: number[] = [];
  let la = 1;
  let lb = 1;
  for (const e of edits) {
    posA.push(la);
    posB.push(lb);
    if (e.op !== "+") la++;
    if (e.op !== "-") lb++;
  }

  const out: string[] = [`--- ${labels.from}\n`, `+++ ${labels.to}\n`];
  for (const [lo, hi] of groups) {
    const slice = edits.slice(lo, hi + 1);
    const countA = slice.filter((e) => e.op !== "+").length;
    const countB = slice.filter((e) => e.op !== "-").length;
    out.push(`@@ -${range(posA[lo]!, countA)} +${range(posB[lo]!, countB)} @@\n`);
    for (const e of slice) {
      out.push(e.op + e.line);
      if (!e.line.endsWith("\n")) out.push("\n\\ No newline at end of file\n");
    }
  }
  return { text: out.join(""), added, removed };
}
