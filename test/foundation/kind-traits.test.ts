import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { EVALUATOR_KINDS } from "../../src/lib/closed-lists.js";
import { DEFAULT_KIND, KIND_TRAITS, kindTraits, POSTED_KIND, COMPUTED_KINDS, kindOfTemplate } from "../../src/modules/evaluators/kinds.js";

/** Every .ts file under `dir`, recursively (generated code aside). */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "generated" ? [] : sourceFiles(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

describe("evaluator kind traits", () => {
  it("holds one row per kind, with today's values", () => {
    expect(Object.keys(KIND_TRAITS).sort()).toEqual([...EVALUATOR_KINDS].sort());
    expect(KIND_TRAITS.code).toEqual({ needsTemplate: true, templateKind: "code", computed: true, sandboxed: true, usesConnection: false, canBePosted: false, canTargetGroups: true });
    expect(KIND_TRAITS.external).toEqual({ needsTemplate: false, templateKind: null, computed: false, sandboxed: false, usesConnection: false, canBePosted: true, canTargetGroups: false });
    expect(KIND_TRAITS.judge).toEqual({ needsTemplate: true, templateKind: "llm", computed: true, sandboxed: false, usesConnection: true, canBePosted: false, canTargetGroups: true });
    expect(kindTraits("code")).toBe(KIND_TRAITS.code);
    expect(kindOfTemplate("llm")).toBe("judge");
    expect(kindOfTemplate("code")).toBe("code");
    expect(kindTraits("nonsense")).toEqual({ needsTemplate: false, templateKind: null, computed: false, sandboxed: false, usesConnection: false, canBePosted: false, canTargetGroups: false });
    expect(kindTraits("toString").computed).toBe(false);
    expect(POSTED_KIND).toBe("external");
    expect(DEFAULT_KIND).toBe("code");
    expect(COMPUTED_KINDS).toEqual(["code", "judge"]);
  });

  it("is the only source file that compares an evaluator's kind with a kind", () => {
    const literal = `"(?:${EVALUATOR_KINDS.join("|")})"`;
    const patterns = [
      new RegExp(`kind[\\w.()?]*\\s*[!=]==?\\s*${literal}`), // kind === "code", kinds.get(id) !== "external"
      new RegExp(`${literal}\\s*[!=]==?\\s*\\w*\\.?kind\\b`), // "code" === e.kind
      new RegExp(`\\bkind:\\s*${literal}`), // a database filter kind: "code"
    ];
    const root = join(import.meta.dirname, "../../src");
    const found: string[] = [];
    for (const file of sourceFiles(root)) {
      const path = relative(root, file);
      if (path === join("modules", "evaluators", "kinds.ts")) continue;
      readFileSync(file, "utf8").split("\n").forEach((line, i) => {
        if (patterns.some((p) => p.test(line))) found.push(`src/${path}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(found).toEqual([]);
  });

  it("the scan recognises the comparisons it forbids", () => {
    const literal = `"(?:${EVALUATOR_KINDS.join("|")})"`;
    const forbid = new RegExp(`kind[\\w.()?]*\\s*[!=]==?\\s*${literal}`);
    expect(forbid.test(`if (evaluator.kind === "external") return`)).toBe(true);
    expect(forbid.test(`kinds.get(id) !== "code"`)).toBe(true);
    expect(forbid.test(`if (problem.kind === "missing")`)).toBe(false);
  });
});
