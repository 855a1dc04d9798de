import { describe, expect, it } from "vitest";
import { unifiedDiff } from "../../src/modules/shared-libraries/diff.js";

const labels = { from: "lib v1", to: "lib v2" };
const lines = (n: number, f = (i: number) => `line ${i}`) => Array.from({ length: n }, (_, i) => `${f(i + 1)}\n`).join("");

/** Applies a unified diff to `before` (a tiny `patch`), to check that the diff is exact. */
function applyDiff(before: string, diff: string): string {
  if (diff === "") return before;
  const src = before === "" ? [] : before.split(/(?<=\n)/);
  const out: string[] = [];
  let pos = 0;
  const body = diff.split(/(?<=\n)/).slice(2);
  for (let i = 0; i < body.length; i++) {
    const line = body[i]!;
    const hunk = /^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@/.exec(line);
    if (hunk) {
      const start = Number(hunk[1]) - (hunk[2] === "0" ? 0 : 1);
      while (pos < start) out.push(src[pos++]!);
      continue;
    }
    const next = body[i + 1];
    const text = next?.startsWith("\\ No newline") ? line.slice(1, -1) : line.slice(1);
    if (line.startsWith("\\")) continue;
    if (line[0] === " ") out.push(src[pos++]!);
    else if (line[0] === "-") pos++;
    else out.push(text);
  }
  while (pos < src.length) out.push(src[pos++]!);
  return out.join("");
}

/** Length of the longest common subsequence (textbook dynamic programming). */
function lcsLength(a: string[], b: string[]): number {
  const row = new Array(b.length + 1).fill(0);
  for (const x of a) {
    let diagonal = 0;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j];
      row[j] = x === b[j - 1] ? diagonal + 1 : Math.max(row[j], row[j - 1]);
      diagonal = above;
    }
  }
  return row[b.length];
}

describe("unifiedDiff", () => {
  it("is empty for equal texts", () => {
    expect(unifiedDiff("a\nb\n", "a\nb\n", labels)).toEqual({ text: "", added: 0, removed: 0 });
  });

  it("prints diff -u hunks with 3 lines of context", () => {
    const before = lines(10);
    const after = before.replace("line 5\n", "line five\n");
    expect(unifiedDiff(before, after, labels)).toEqual({
      added: 1,
      removed: 1,
      text: "--- lib v1\n+++ lib v2\n@@ -2,7 +2,7 @@\n line 2\n line 3\n line 4\n-line 5\n+line five\n line 6\n line 7\n line 8\n",
    });
  });

  it("splits distant changes into separate hunks and merges close ones", () => {
    const before = lines(30);
    const after = before.replace("line 2\n", "two\n").replace("line 25\n", "").replace("line 28\n", "line 28\nextra\n");
    const { text } = unifiedDiff(before, after, labels);
    expect(text.match(/^@@.*$/gm)).toEqual(["@@ -1,5 +1,5 @@", "@@ -22,9 +22,9 @@"]);
    expect(applyDiff(before, text)).toBe(after);
  });

  it("handles additions to and removals from empty texts (diff -u ranges)", () => {
    expect(unifiedDiff("", "a\n", labels).text).toBe("--- lib v1\n+++ lib v2\n@@ -0,0 +1,1 @@\n+a\n");
    expect(unifiedDiff("a\nb\n", "", labels).text).toBe("--- lib v1\n+++ lib v2\n@@ -1,2 +0,0 @@\n-a\n-b\n");
  });

  it("marks a last line without a newline", () => {
    expect(unifiedDiff("a\nb", "a\nb\n", labels).text).toBe("--- lib v1\n+++ lib v2\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n");
  });

  it("finds a shortest edit script (every applied diff rebuilds the new text)", () => {
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let round = 0; round < 300; round++) {
      const make = () => Array.from({ length: random(20) }, () => "abcdef"[random(6)]).join("\n") + (random(2) ? "\n" : "");
      const before = make();
      const after = make();
      const diff = unifiedDiff(before, after, labels);
      expect(applyDiff(before, diff.text)).toBe(after);
      const a = before === "" ? [] : before.split(/(?<=\n)/);
      const b = after === "" ? [] : after.split(/(?<=\n)/);
      expect(diff.added + diff.removed).toBe(a.length + b.length - 2 * lcsLength(a, b));
    }
  });

  it("stays fast on large, very different sources (a single replacement past the edit bound)", () => {
    const before = lines(6000, (i) => `a = ${i}`);
    const after = lines(6000, (i) => `b = ${i}`);
    const t0 = performance.now();
    const diff = unifiedDiff(before, after, labels);
    // Not a speed goal (that is npm run bench): a guard against a runaway diff, with a bound far
    // above what a busy machine takes (milliseconds when idle).
    expect(performance.now() - t0).toBeLessThan(30_000);
    expect(diff).toMatchObject({ added: 6000, removed: 6000 });
    expect(applyDiff(before, diff.text)).toBe(after);
  });
});
