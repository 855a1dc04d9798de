import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MCP_TOOL_NAMES } from "../../src/mcp/tool-names.js";
import { cliRunner, ROOT, serviceForThisFile } from "./service.js";

// What a new user's first session found (trial findings 1, 5, 9, 11): errors name the CLI's
// flags, an unknown document key is named, a dataset line is a document, help lists every tool.
const service = serviceForThisFile();

const T = 300_000;
const dir = mkdtempSync(join(tmpdir(), "oodle-trial-"));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe("CLI errors a new user met", () => {
  it("oodle --help and oodle mcp --help name every MCP tool", { timeout: T }, async () => {
    const oodle = cliRunner(service, "oodle_sk_unused");
    for (const args of [["--help"], ["mcp", "--help"]]) {
      const help = await oodle(args);
      expect(help.exitCode).toBe(0);
      for (const tool of MCP_TOOL_NAMES) expect(help.stdout, args.join(" ")).toContain(tool);
    }
  });

  it("names flags, not API fields; never an empty path; refuses --from after --to", { timeout: T }, async () => {
    const { key } = await service.workspace("trial-errors");
    const oodle = cliRunner(service, key);
    expect((await oodle(["genai", "templates", "create", "--starter", "keyword-check"])).exitCode).toBe(0);

    const kind = await oodle(["spans", "list", "--kind", "bogus"]);
    expect([kind.exitCode, kind.stderr]).toEqual([2, expect.stringMatching(/^\s+--kind: /m)]);
    expect(kind.stderr).not.toContain("filter.kind");

    const spanKind = await oodle(["--json", "genai", "evaluators", "create", "--name", "E", "--template", "Keyword check", "--span-kind", "llm"]);
    expect(spanKind.exitCode).toBe(2);
    expect(JSON.parse(spanKind.stderr).error).toMatchObject({ field: "--span-kind", issues: [{ path: "--span-kind", apiPath: "input.spanKind" }] });

    const rate = await oodle(["genai", "evaluators", "create", "--name", "E", "--template", "Keyword check", "--sampling-rate", "2"]);
    expect([rate.exitCode, rate.stderr]).toEqual([2, expect.stringMatching(/^\s+--sampling-rate: /m)]);

    const items = file("one.jsonl", '{"input": "q", "output": "a"}\n');
    expect((await oodle(["datasets", "import", "one", items])).exitCode).toBe(0);
    const noEvaluator = await oodle(["experiments", "run", "--dataset", "one"]);
    expect([noEvaluator.exitCode, noEvaluator.stderr]).toEqual([2, expect.stringMatching(/^\s+--evaluator: /m)]);

    const code = file("check.py", "def evaluate(ctx):\n    return EvaluationResult(scores=[])\n");
    const both = await oodle(["genai", "try", code, "--template", "Keyword check", "--document", file("d.json", '{"output": "hi"}')]);
    expect([both.exitCode, both.stderr]).toEqual([2, expect.stringMatching(/^\s+FILE: give exactly one of/m)]);

    const spans = file("spans.jsonl", '{"traceId": "t", "spanId": "s", "name": "n", "bogus": 1}\n');
    const ingest = await oodle(["spans", "ingest", spans]);
    expect(ingest.exitCode).toBe(2);
    expect(ingest.stdout).toContain("rejected line 1: bogus: unknown field");
    expect(ingest.stdout).not.toMatch(/: : /);

    const backwards = await oodle(["--json", "spans", "list", "--from", "now", "--to", "-1d"]);
    expect(backwards.exitCode).toBe(2);
    expect(JSON.parse(backwards.stderr).error).toMatchObject({ code: "BAD_USER_INPUT", field: "--to", message: expect.stringMatching(/^must be after --from \(--from "now" was read as \S+Z, --to "-1d" as \S+Z\)/) });
  });

  it("try --document: an unknown key is named; an items.jsonl line scores as GraphQL tryCode does", { timeout: T }, async () => {
    const { key } = await service.workspace("trial-document");
    const oodle = cliRunner(service, key);
    const typo = await oodle(["--json", "genai", "try", "--starter", "levenshtein", "--document", file("typo2.json", '{"output": "hi", "foo": 1}')]);
    expect(typo.exitCode).toBe(2);
    expect(JSON.parse(typo.stderr).error.issues).toEqual([{ path: "document.foo", message: "unknown field" }]);

    const line = readFileSync(join(ROOT, "../shared/data/truthfulqa/items.jsonl"), "utf8").split("\n")[1]!;
    const run = await oodle(["--json", "genai", "try", "--starter", "levenshtein", "--document", file("line2.json", line)]);
    expect(run.exitCode, run.stderr).toBe(0);
    const score = JSON.parse(run.stdout).scores[0].value;
    expect(score).toBeCloseTo(0.2049, 4);
  });
});
