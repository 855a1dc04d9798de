import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { cliRunner, OODLE_BIN, ROOT, serviceForThisFile } from "./service.js";

// What a new user met following the README on a fresh clone, each as the CLI (a subprocess)
// against the real service on a spare port: a pulled folder run locally (PyYAML reads template.yaml), finding a
// span to explain, --scores without a sample that carries scores, epoch milliseconds in --start,
// and the exit code of an unreachable service.
const service = serviceForThisFile();

const T = 480_000;
/** Debian's Python, with PyYAML (python3-yaml): what reads template.yaml locally. */
const PYTHON = "/usr/bin/python3";

/** `python -m oodle_eval ARGS` with python-lib on the path; `hidePyYaml` puts a package named yaml that raises first. */
async function oodleEval(args: string[], hidePyYaml = false) {
  const path = [join(ROOT, "python-lib")];
  if (hidePyYaml) {
    const blocker = mkdtempSync(join(tmpdir(), "hide-pyyaml-"));
    mkdirSync(join(blocker, "yaml"));
    writeFileSync(join(blocker, "yaml", "__init__.py"), "raise ImportError('PyYAML is hidden by this test')\n");
    path.unshift(blocker);
  }
  const env = { PYTHONPATH: path.join(":"), PATH: process.env.PATH ?? "" };
  return execa(PYTHON, ["-m", "oodle_eval", ...args], { env, extendEnv: false, reject: false });
}

describe("a pulled folder runs locally", () => {
  it("pull writes template.yaml that python -m oodle_eval run reads into the same ctx.params as the service's templates test", { timeout: T }, async () => {
    const { key } = await service.workspace("trial-pull");
    const oodle = cliRunner(service, key);
    const dir = mkdtempSync(join(tmpdir(), "oodle-trial-"));
    // Settings whose values are awkward as YAML: a multi-line description with quotes and "# ", strings that look
    // like other types, a nested JSON default with keys holding ": ", non-ASCII, an integral float.
    const settings = [
      { name: "mode", type: "enum", options: ["all", "any", "yes"], default: "yes", label: "Mode: how words combine", description: 'First line\nSecond "quoted" line # not a comment' },
      { name: "words", type: "string_list", default: ["true", "1.0", "null", "- dash", "a: b", "é😀"] },
      { name: "weights", type: "json", default: { "JSON check: strict": [1, [2.5, -3], { c: null, d: "" }], "k:y": "\t" } },
      { name: "at", type: "number", default: 1.0 },
      { name: "note", type: "string" },
    ];
    writeFileSync(join(dir, "show.py"), "import json\n\ndef evaluate(ctx):\n    return EvaluationResult(scores=[Score(name='params', value=json.dumps(ctx.params, sort_keys=True))])\n");
    writeFileSync(join(dir, "template.json"), JSON.stringify({ name: "Show params", description: "prints: ctx.params", sourceFile: "show.py", params: settings }));
    const created = await oodle(["genai", "templates", "create", "--file", join(dir, "template.json")]);
    expect(created.exitCode, created.stderr).toBe(0);

    const folder = join(dir, "show");
    const pulled = await oodle(["genai", "templates", "pull", "Show params", folder]);
    expect(pulled.exitCode, pulled.stderr).toBe(0);
    const manifestText = readFileSync(join(folder, "template.yaml"), "utf8");
    expect(manifestText).toContain('description: "First line\\nSecond \\"quoted\\" line # not a comment"'); // one line, JSON-quoted
    expect(parseYaml(manifestText).settings[1].default).toEqual(settings[1]!.default);

    // The service's own run of the folder (tryCode) and the local run agree on ctx.params.
    writeFileSync(join(dir, "doc.json"), JSON.stringify({ output: "hi" }));
    const served = await oodle(["--json", "genai", "templates", "test", folder, "--document", join(dir, "doc.json"), "--params", '{"note": "n"}']);
    expect(served.exitCode, served.stderr).toBe(0);
    const serviceParams = JSON.parse(JSON.parse(served.stdout).scores[0].value);
    expect(serviceParams).toEqual({ mode: "yes", words: settings[1]!.default, weights: settings[2]!.default, at: 1, note: "n" });

    const local = await oodleEval(["run", join(folder, "evaluate.py"), "--span", join(dir, "doc.json"), "--params", '{"note": "n"}', "--json"]);
    expect(local.exitCode, local.stderr).toBe(0);
    expect(JSON.parse(JSON.parse(local.stdout)[0].value)).toEqual(serviceParams);
    expect(JSON.parse(local.stdout)[0].value).toContain('"at": 1,'); // 1.0 is the integer 1 in both

    // A hand edit: a block scalar reads as the CLI reads it; a key twice is refused by both, naming the line.
    writeFileSync(join(folder, "template.yaml"), manifestText.replace(/^description: .*$/m, "description: |\n  two\n  lines"));
    expect((await oodleEval(["run", join(folder, "evaluate.py"), "--params", '{"note": "n"}', "--json"])).exitCode).toBe(0);
    expect((await oodle(["genai", "templates", "validate", folder])).exitCode).toBe(0);
    writeFileSync(join(folder, "template.yaml"), manifestText.replace(/^description: .*$/m, "description: one\ndescription: two"));
    const refused = await oodleEval(["run", join(folder, "evaluate.py")]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/template\.yaml:3: the key 'description' appears twice/);
    const cliRefused = await oodle(["genai", "templates", "validate", folder]);
    expect(cliRefused.exitCode).toBe(2);
    expect(cliRefused.stderr).toContain("template.yaml is not valid YAML: line 3: Map keys must be unique");

    // Without PyYAML the local run says what to install (or to pass --no-template).
    const missing = await oodleEval(["run", join(folder, "evaluate.py")], true);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/reading it needs PyYAML .*pip install \.\/python-lib installs it.*--no-template/);
  });
});

describe("finding a span to explain", () => {
  it("spans list shows global, trace and span ids with filters; explain takes the global id, TRACE:SPAN or --trace", { timeout: T }, async () => {
    const { key } = await service.workspace("trial-spans");
    const oodle = cliRunner(service, key);
    const dir = mkdtempSync(join(tmpdir(), "oodle-trial-"));
    expect((await oodle(["genai", "templates", "create", "--starter", "keyword-check"])).exitCode).toBe(0);
    const evaluator = await oodle(["genai", "evaluators", "create", "--name", "Refund mentioned", "--template", "Keyword check", "--params", '{"required": ["refund"]}', "--attribute", "app.channel=support"]);
    expect(evaluator.exitCode, evaluator.stderr).toBe(0);
    writeFileSync(
      join(dir, "spans.jsonl"),
      [
        { traceId: "t1", spanId: "s1", name: "chat", startTime: "2026-11-30T10:00:00Z", input: [{ role: "user", content: "Broken" }], output: "We will refund you.", attributes: { "app.channel": "support" } },
        { traceId: "t1", spanId: "s2", name: "lookup", kind: "tool", startTime: "2026-11-30T10:00:01Z", input: { order: 7 }, output: "shipped" },
        { traceId: "t2", spanId: "s1", name: "chat", startTime: "2026-11-30T11:00:00Z", input: [{ role: "user", content: "Hi" }], output: "Hello", attributes: { "app.channel": "sales" } },
      ].map((s) => JSON.stringify(s)).join("\n"),
    );
    expect((await oodle(["spans", "ingest", join(dir, "spans.jsonl")])).exitCode).toBe(0);

    const all = await oodle(["--json", "spans", "list"]);
    expect(all.exitCode, all.stderr).toBe(0);
    const listed = JSON.parse(all.stdout);
    expect(listed.spans.map((s: { traceId: string; spanId: string }) => `${s.traceId}:${s.spanId}`)).toEqual(["t2:s1", "t1:s2", "t1:s1"]); // newest start first
    expect(listed.hasNextPage).toBe(false);
    const t1s1 = listed.spans.find((s: { traceId: string; spanId: string }) => s.traceId === "t1" && s.spanId === "s1");

    const filtered = await oodle(["--json", "spans", "list", "--trace", "t1", "--kind", "chat"]);
    expect(JSON.parse(filtered.stdout).spans.map((s: { id: string }) => s.id)).toEqual([t1s1.id]);
    const page = await oodle(["spans", "list", "--first", "1"]);
    expect(page.stdout).toMatch(/^ID\s+TRACE ID\s+SPAN ID\s+NAME\s+KIND\s+STATUS\s+START\s+SCORES$/m);
    expect(page.stdout).toMatch(/\st2\s+s1\s+chat\s+chat\s/);
    expect(page.stderr).toMatch(/^more spans: --after \S+$/m);
    const badTime = await oodle(["--json", "spans", "list", "--from", "yesterday"]);
    expect(badTime.exitCode).toBe(2);
    expect(JSON.parse(badTime.stderr).error.field).toBe("--from");

    // explain: by global id, by TRACE:SPAN, by span id + --trace: the same answer.
    const byId = await oodle(["--json", "genai", "evaluators", "explain", "Refund mentioned", t1s1.id]);
    expect(byId.exitCode, byId.stderr).toBe(0);
    expect(JSON.parse(byId.stdout)).toMatchObject({ matched: true });
    const byRef = await oodle(["--json", "genai", "evaluators", "explain", "Refund mentioned", "t1:s1"]);
    expect(JSON.parse(byRef.stdout)).toEqual(JSON.parse(byId.stdout));
    const byTrace = await oodle(["--json", "genai", "evaluators", "explain", "Refund mentioned", "s1", "--trace", "t2"]);
    expect(JSON.parse(byTrace.stdout)).toMatchObject({ matched: false, reason: "attributes" });
    const text = await oodle(["genai", "evaluators", "explain", "Refund mentioned", "t1:s1"]);
    expect(text.stdout).toMatch(/^matches: /);

    // What a user might type instead: exit 2 naming the argument, or 3 for a span that is not there.
    const bare = await oodle(["--json", "genai", "evaluators", "explain", "Refund mentioned", "s1"]);
    expect(bare.exitCode).toBe(2);
    expect(JSON.parse(bare.stderr).error).toMatchObject({ code: "BAD_USER_INPUT", field: "span" });
    expect(JSON.parse(bare.stderr).error.message).toContain("TRACE_ID:SPAN_ID");
    const missing = await oodle(["--json", "genai", "evaluators", "explain", "Refund mentioned", "t1:s9"]);
    expect(missing.exitCode).toBe(3);
    expect(JSON.parse(missing.stderr).error.message).toBe('no span "s9" in trace "t1" (it has s1, s2)');

    // The stored span's scores show once the live run is in.
    // (Polled up to 180 s: a deadline that catches a hang, not slowness on a loaded machine.)
    let scored = "";
    for (const deadline = Date.now() + 180_000; !scored.includes("Refund mentioned/") && Date.now() < deadline; ) {
      scored = (await oodle(["spans", "list", "--trace", "t1", "--kind", "chat"])).stdout;
      if (!scored.includes("Refund mentioned/")) await new Promise((r) => setTimeout(r, 500));
    }
    expect(scored).toMatch(/Refund mentioned\/keywords_ok=true$/m);
    const byEvaluator = await oodle(["--json", "spans", "list", "--evaluator", "Refund mentioned", "--score-value", "true"]);
    expect(JSON.parse(byEvaluator.stdout).spans.map((s: { id: string }) => s.id)).toEqual([t1s1.id]);

    // --scores needs a sample that carries scores: alone, or with an inline span file, it is refused naming it.
    writeFileSync(join(dir, "span.json"), JSON.stringify({ input: [{ role: "user", content: "Hi" }], output: "refund" }));
    const folder = join(dir, "kw");
    expect((await oodle(["genai", "templates", "pull", "Keyword check", folder])).exitCode).toBe(0);
    for (const sample of [[], ["--span", join(dir, "span.json")]]) {
      const misused = await oodle(["--json", "genai", "templates", "test", folder, ...sample, "--scores", '{"JSON check": {"is_json": true}}']);
      expect(misused.exitCode).toBe(2);
      expect(JSON.parse(misused.stderr).error).toMatchObject({ code: "BAD_USER_INPUT", field: "--scores" });
      expect(JSON.parse(misused.stderr).error.message).toContain("--document FILE, or --span with a stored span");
    }
    const typo = await oodle(["--json", "genai", "templates", "test", folder, "--span", join(dir, "spam.json")]);
    expect(typo.exitCode).toBe(2);
    expect(JSON.parse(typo.stderr).error.field).toBe("--span");
    const stored = await oodle(["--json", "genai", "templates", "test", folder, "--span", "t1:s1", "--params", '{"required": ["refund"]}', "--scores", '{"Other": {"x": 1}}']);
    expect(stored.exitCode, stored.stderr).toBe(0);
    expect(JSON.parse(stored.stdout).scores[0].value).toBe(true);
  });
});

describe("time flags and exit codes", () => {
  it("--start in epoch milliseconds is read as milliseconds; a refused window says the date it read; an unreachable service is UNAVAILABLE, exit 1", { timeout: T }, async () => {
    const { key } = await service.workspace("trial-time");
    const oodle = cliRunner(service, key);
    expect((await oodle(["genai", "templates", "create", "--starter", "keyword-check"])).exitCode).toBe(0);
    expect((await oodle(["genai", "evaluators", "create", "--name", "Refund mentioned", "--template", "Keyword check"])).exitCode).toBe(0);

    const hourAgoMs = Date.now() - 3_600_000;
    const ms = await oodle(["--json", "backfills", "create", "--evaluator", "Refund mentioned", "--start", String(hourAgoMs), "--dry-run"]);
    expect(ms.exitCode, ms.stderr).toBe(0);
    expect(JSON.parse(ms.stdout).windowStart).toBe(new Date(hourAgoMs).toISOString());
    const seconds = await oodle(["--json", "backfills", "create", "--evaluator", "Refund mentioned", "--start", String(Math.floor(hourAgoMs / 1000)), "--dry-run"]);
    expect(JSON.parse(seconds.stdout).windowStart).toBe(new Date(Math.floor(hourAgoMs / 1000) * 1000).toISOString());

    // 2024-11-30T20:53:20Z, as epoch ms: over 90 days ago, refused, and the message says how it was read.
    const old = await oodle(["--json", "backfills", "create", "--evaluator", "Refund mentioned", "--start", "1733000000000", "--dry-run"]);
    expect(old.exitCode).toBe(2);
    expect(JSON.parse(old.stderr).error.issues).toEqual([
      { path: "windowStart", message: 'the window must be at most 90 days; --start "1733000000000" was read as 2024-11-30T20:53:20.000Z (epoch milliseconds)' },
    ]);
    const help = await oodle(["backfills", "create", "--help"]);
    expect(help.stdout).toContain("seconds, milliseconds, microseconds or nanoseconds told apart by size");

    const down = await execa(process.execPath, [OODLE_BIN, "--json", "genai", "templates", "list"], {
      reject: false,
      env: { OODLE_API_URL: "http://127.0.0.1:9", OODLE_API_KEY: key, OODLE_CONFIG_DIR: mkdtempSync(join(tmpdir(), "oodle-cli-")) },
    });
    expect(down.exitCode).toBe(1);
    expect(JSON.parse(String(down.stderr)).error.code).toBe("UNAVAILABLE");
  });
});
