// Starters: built-in templates whose settings are the keyword arguments of their oodle_eval.v1
// check, so that `metrics.X(ctx, **ctx.params)` works.
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { listStarters } from "../../src/modules/templates/starters/index.js";
import { resolveParams } from "../../src/modules/templates/values.js";
import { templatesHarness } from "./helpers.js";

const h = templatesHarness();
afterAll(() => h.app.close());

const EXPECTED_IDS = [
  "keyword-check", "json-shape", "pii-leak", "refusal", "readability", "tone", "length-budget",
  "tool-trajectory", "exact-match", "levenshtein", "rag-grounded", "all-checks-pass", "judge-gate", "politeness-judge", "faithfulness-judge",
];

/** The code starters (the llm ones have a judge instead of code: test/judges/starters.test.ts). */
const codeStarters = () => listStarters().filter((s) => !s.judge);

/** The oodle_eval.v1 checks each starter calls; every setting must be a keyword argument of one of them. */
const CHECKS: Record<string, string[]> = {
  "keyword-check": ["keyword_check"],
  "json-shape": ["json_validity"],
  "pii-leak": ["pii_leak"],
  refusal: ["refusal"],
  readability: ["readability"],
  tone: ["tone"],
  "length-budget": ["length_budget"],
  "tool-trajectory": ["tool_trajectory"],
  "exact-match": ["exact_match"],
  levenshtein: ["levenshtein_ratio"],
  "rag-grounded": ["grounding", "unsupported_numbers", "citation_check"],
  "all-checks-pass": ["keyword_check"],
  "judge-gate": ["keyword_check"],
};

/** Runs Python with python-lib on the path (trusted code of this repository only). */
async function python(code: string, input: unknown): Promise<any> {
  const result = await execa("/usr/bin/python3.11", ["-I", "-S", "-B", "-c", code], { input: JSON.stringify(input), env: {}, extendEnv: false, cwd: process.cwd() });
  return JSON.parse(result.stdout);
}

describe("starters", () => {
  it("lists id, name and setting names", async () => {
    const ws = await h.workspace("starters-list");
    const res = await ws.gql(`{ starters(first: 50) { edges { node { id name settingNames } } } }`);
    expect(res.errors).toBeUndefined();
    const nodes = res.data?.starters.edges.map((e: any) => e.node);
    expect(nodes.map((n: any) => n.id)).toEqual(EXPECTED_IDS);
    expect(nodes[0]).toEqual({ id: "keyword-check", name: "Keyword check", settingNames: ["required", "forbidden", "mode", "case_sensitive"] });
  });

  it("keyword-check has required, forbidden, mode (enum all/any) and case_sensitive", async () => {
    const ws = await h.workspace("starters-kw");
    const res = await ws.gql(`{ starter(id: "keyword-check") { params { name type options default required } file sourceCode } }`);
    expect(res.data?.starter.params).toEqual([
      { name: "required", type: "string_list", options: null, default: [], required: false },
      { name: "forbidden", type: "string_list", options: null, default: [], required: false },
      { name: "mode", type: "enum", options: ["all", "any"], default: "all", required: false },
      { name: "case_sensitive", type: "boolean", options: null, default: false, required: false },
    ]);
    const file: string = res.data?.starter.file;
    expect(file).toContain("#   required (string_list, default []): The reply must mention these (all or any, by mode).");
    expect(file).toContain('#   mode (enum of "all" | "any", default "all")');
    expect(file).toContain("#   case_sensitive (boolean, default False)");
    expect(file).toContain("metrics.keyword_check(ctx, **ctx.params)");
    expect(file.endsWith(res.data?.starter.sourceCode)).toBe(true);
  });

  it("an unknown starter is NOT_FOUND", async () => {
    const ws = await h.workspace("starters-404");
    const res = await ws.gql(`{ starter(id: "nope") { id } }`);
    expect(res.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    expect(res.errors?.[0]?.message).toMatch(/^starter "nope" not found: the starters are keyword-check, .*all-checks-pass/);
    const create = await ws.gql(`mutation { createTemplateFromStarter(input: { starterId: "nope" }) { template { id } } }`);
    expect(create.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
  });

  it("every starter saves as a template and validates", async () => {
    const ws = await h.workspace("starters-save");
    for (const starter of codeStarters()) {
      const res = await ws.gql(
        `mutation($id: String!) { createTemplateFromStarter(input: { starterId: $id }) { template { name description latestVersion { version sourceCode entryPoint { kind } params { name type default required options } } } } }`,
        { id: starter.id },
      );
      expect(res.errors, starter.id).toBeUndefined();
      const template = res.data?.createTemplateFromStarter.template;
      expect(template.name).toBe(starter.name);
      expect(template.latestVersion).toMatchObject({ version: 1, sourceCode: starter.sourceCode, entryPoint: { kind: "evaluate" } });
      expect(template.latestVersion.params.map((p: any) => p.name)).toEqual(starter.params.map((p) => p.name));
    }
    const named = await ws.gql(`mutation { createTemplateFromStarter(input: { starterId: "keyword-check", name: "Refund mentioned" }) { template { name } } }`);
    expect(named.data?.createTemplateFromStarter.template.name).toBe("Refund mentioned");
  });

  it("every setting is a keyword argument of a check that the starter calls", async () => {
    const code = `
import inspect, json, sys
sys.path.insert(0, "python-lib")
from oodle_eval.v1 import metrics
out = {}
for name in json.load(sys.stdin):
    sig = inspect.signature(getattr(metrics, name))
    out[name] = {p.name: (None if p.default is inspect.Parameter.empty else p.default) for p in list(sig.parameters.values())[1:]}
print(json.dumps(out))`;
    const signatures = await python(code, [...new Set(Object.values(CHECKS).flat())]);
    for (const starter of codeStarters()) {
      for (const spec of starter.params) {
        const owners = CHECKS[starter.id]!.filter((check) => spec.name in signatures[check]);
        expect(owners.length, `${starter.id}: ${spec.name}`).toBeGreaterThan(0);
      }
    }
    expect(signatures.keyword_check).toMatchObject({ mode: "all", case_sensitive: false });
  });

  it("every starter runs with its resolved settings: metrics.X(ctx, **ctx.params) works", async () => {
    const code = `
import json, sys
sys.path.insert(0, "python-lib")
from oodle_eval.v1 import make_context
from oodle_eval.v1.entrypoint import load_evaluator, run_entry_point
sample = {"input": [{"role": "user", "content": "Can I get a refund on order 1200?"}],
          "output": "Yes, a refund of order 1200 is possible [1].",
          "attributes": {"context": "Refunds of order 1200 are possible."}, "expected_output": "Yes"}
out = {}
for case in json.load(sys.stdin):
    ns = load_evaluator(case["source"], module_name="starter_" + case["id"].replace("-", "_"))
    out[case["id"]] = [s.name for s in run_entry_point(ns, make_context(sample, params=case["params"]))]
print(json.dumps(out))`;
    const own: Record<string, Record<string, unknown>> = { "tool-trajectory": { expected: [], mode: "superset" } };
    const cases = codeStarters().map((s) => ({ id: s.id, source: s.sourceCode, params: resolveParams(s.params, own[s.id] ?? {}) }));
    const scores = await python(code, cases);
    expect(scores).toEqual({
      "keyword-check": ["keywords_ok"],
      "json-shape": ["is_json"],
      "pii-leak": ["pii_free"],
      refusal: ["refused"],
      readability: ["readability_ok", "reading_ease", "grade_level"],
      tone: ["tone_ok"],
      "length-budget": ["within_length", "word_count"],
      "tool-trajectory": ["trajectory_match"],
      "exact-match": ["exact_match"],
      levenshtein: ["levenshtein_ratio"],
      "rag-grounded": ["grounded", "grounding", "numbers_supported", "citations_ok", "rag_ok"],
      "all-checks-pass": ["pii_free", "refused", "keywords_ok", "safe_reply"],
      "judge-gate": ["needs_judge"],
    });
  });
});
