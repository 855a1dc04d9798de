import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { cliRunner, ROOT, serviceForThisFile } from "./service.js";

// The `oodle` CLI as a subprocess against the real service (API + worker, Postgres, Redis,
// sandbox) started here on a spare port; each test has a workspace of its own.
const service = serviceForThisFile();

const T = 480_000;

/** A workspace with the "Keyword check" template and the "Refund mentioned" evaluator, made with the CLI. */
async function refundSetup() {
  const { key } = await service.workspace();
  const oodle = cliRunner(service, key);
  expect((await oodle(["genai", "templates", "create", "--starter", "keyword-check"])).exitCode).toBe(0);
  const created = await oodle(["--json", "genai", "evaluators", "create", "--name", "Refund mentioned", "--template", "Keyword check", "--params", '{"required": ["refund"]}', "--attribute", "app.channel=support"]);
  expect(created.exitCode, created.stderr).toBe(0);
  return { oodle, key };
}

describe("the settings page's three commands, verbatim", () => {
  it("oodle genai templates starters / starters keyword-check / evaluators get \"Refund mentioned\"", { timeout: T }, async () => {
    const { oodle } = await refundSetup();

    const starters = await oodle(["genai", "templates", "starters"]);
    expect(starters.exitCode).toBe(0);
    const row = starters.stdout.split("\n").find((l) => l.startsWith("keyword-check"))!;
    expect(row).toMatch(/^keyword-check\s+Keyword check\s+required, forbidden, mode, case_sensitive$/);
    expect(starters.stdout.split("\n")[0]).toMatch(/^ID\s+NAME\s+SETTINGS$/);

    const file = await oodle(["genai", "templates", "starters", "keyword-check"]);
    expect(file.exitCode).toBe(0);
    expect(file.stdout).toContain('#   mode (enum of "all" | "any", default "all")');
    expect(file.stdout).toContain("#   case_sensitive (boolean, default False)");
    expect(file.stdout).toContain("#   required (string_list, default [])");
    expect(file.stdout).toContain("def evaluate(ctx):");

    const get = await oodle(["genai", "evaluators", "get", "Refund mentioned"]);
    expect(get.exitCode).toBe(0);
    expect(get.stdout).toMatch(/template:\s+Keyword check/);
    expect(get.stdout).toMatch(/template version:\s+version 1 \(follows the latest\)/);
    expect(get.stdout).toMatch(/rule:\s+chat spans, app\.channel="support", 100% sampled/);
    expect(get.stdout).toContain('values set:\n  required = ["refund"]');
    expect(get.stdout).toContain('ctx.params: {"required":["refund"],"forbidden":[],"mode":"all","case_sensitive":false}');
  });
});

describe("--json and exit codes", () => {
  it("prints parseable JSON, and exits 3 for not found, 5 for a bad key, 2 for bad input naming the field", { timeout: T }, async () => {
    const { oodle } = await refundSetup();
    const json = await oodle(["genai", "evaluators", "get", "Refund mentioned", "--json"]);
    expect(json.exitCode).toBe(0);
    const evaluator = JSON.parse(json.stdout);
    expect(evaluator).toMatchObject({ name: "Refund mentioned", params: { required: ["refund"] }, template: { name: "Keyword check" }, templateVersion: { version: 1 } });

    const missing = await oodle(["--json", "genai", "evaluators", "get", "No such evaluator"]);
    expect(missing.exitCode).toBe(3);
    expect(JSON.parse(missing.stderr).error.code).toBe("NOT_FOUND");

    const badKey = await oodle(["genai", "templates", "list"], { OODLE_API_KEY: "oodle_sk_not-a-key" });
    expect(badKey.exitCode).toBe(5);
    expect(badKey.stderr).toContain("UNAUTHENTICATED");

    const bad = await oodle(["--json", "genai", "evaluators", "update", "Refund mentioned", "--params", '{"mode": "some"}']);
    expect(bad.exitCode).toBe(2);
    const error = JSON.parse(bad.stderr).error;
    expect(error.code).toBe("BAD_USER_INPUT");
    expect(error.field).toBe("params.mode");

    // --params sets the given values and keeps the others; --replace-params replaces them all.
    const merged = await oodle(["--json", "genai", "evaluators", "update", "Refund mentioned", "--params", '{"mode": "any"}']);
    expect(merged.exitCode, merged.stderr).toBe(0);
    expect(JSON.parse(merged.stdout).params).toEqual({ required: ["refund"], mode: "any" });
    const kept = await oodle(["--json", "genai", "evaluators", "update", "Refund mentioned", "--params", '{"required": ["refund", "return"]}']);
    expect(JSON.parse(kept.stdout).params).toEqual({ required: ["refund", "return"], mode: "any" });
    const replaced = await oodle(["--json", "genai", "evaluators", "update", "Refund mentioned", "--params", '{"required": ["refund"]}', "--replace-params"]);
    expect(JSON.parse(replaced.stdout)).toMatchObject({ params: { required: ["refund"] }, resolvedParams: { mode: "all" } });
    expect(Object.keys(JSON.parse(replaced.stdout).params)).toEqual(["required"]);
  });
});

describe("authoring from a folder", () => {
  it("pull → edit → push → test; the 409 exits 4 naming the evaluator; a moved server version exits 4 unless --force", { timeout: T }, async () => {
    const { oodle } = await refundSetup();
    const dir = join(mkdtempSync(join(tmpdir(), "oodle-pull-")), "kw");
    const pulled = await oodle(["genai", "templates", "pull", "Keyword check", dir]);
    expect(pulled.exitCode, pulled.stderr).toBe(0);
    const manifest = parseYaml(readFileSync(join(dir, "template.yaml"), "utf8"));
    expect(manifest.settings.map((s: { name: string }) => s.name)).toEqual(["required", "forbidden", "mode", "case_sensitive"]);
    const lock = JSON.parse(readFileSync(join(dir, "oodle.lock.json"), "utf8"));
    expect(lock.template).toMatchObject({ name: "Keyword check", version: 1 });
    expect(lock.template.sha256).toMatch(/^[0-9a-f]{64}$/);

    // An edit the evaluator's values would break: "required" becomes a plain string.
    const original = readFileSync(join(dir, "template.yaml"), "utf8");
    manifest.settings[0] = { name: "required", type: "string", default: "" };
    writeFileSync(join(dir, "template.yaml"), JSON.stringify(manifest));
    const conflict = await oodle(["genai", "templates", "push", dir]);
    expect(conflict.exitCode).toBe(4);
    expect(conflict.stderr).toContain('blocked by evaluator "Refund mentioned"');

    // validate reports by file and field, without saving.
    manifest.settings[0] = { name: "required", type: "string", default: 3 };
    writeFileSync(join(dir, "template.yaml"), JSON.stringify(manifest));
    const invalid = await oodle(["--json", "genai", "templates", "validate", dir]);
    expect(invalid.exitCode).toBe(2);
    expect(JSON.parse(invalid.stdout).issues[0]).toMatchObject({ field: "template.yaml settings.required.default", apiField: "params[0].default" });

    // A compatible edit: the code also scores the reply's length; push saves version 2.
    writeFileSync(join(dir, "template.yaml"), original);
    const code = readFileSync(join(dir, "evaluate.py"), "utf8");
    writeFileSync(join(dir, "evaluate.py"), code.replace("def evaluate(ctx):", "def evaluate(ctx):\n    print('checked', ctx.params['required'])"));
    const pushed = await oodle(["--json", "genai", "templates", "push", dir]);
    expect(pushed.exitCode, pushed.stderr).toBe(0);
    expect(JSON.parse(pushed.stdout)).toMatchObject({ template: { version: 2 }, newVersion: true, created: false });
    expect(JSON.parse(readFileSync(join(dir, "oodle.lock.json"), "utf8")).template.version).toBe(2);

    const span = join(dir, "..", "span.json");
    writeFileSync(span, JSON.stringify({ input: [{ role: "user", content: "It arrived broken" }], output: "Sorry! We will send a refund today." }));
    const tested = await oodle(["--json", "genai", "templates", "test", dir, "--span", span, "--params", '{"required": ["refund", "return"], "mode": "any"}']);
    expect(tested.exitCode, tested.stderr).toBe(0);
    const result = JSON.parse(tested.stdout);
    expect(result.outcome).toBe("ok");
    expect(result.params).toEqual({ required: ["refund", "return"], forbidden: [], mode: "any", case_sensitive: false });
    expect(result.stdout).toContain("checked ['refund', 'return']");
    expect(result.scores.find((s: { name: string }) => s.name === "keyword_check")?.value ?? result.scores[0].value).toBe(true);

    // Someone else saves version 3: a push of the folder (at version 2) is refused, then forced.
    const other = await oodle(["genai", "templates", "update", "Keyword check", "--description", "changed elsewhere", "--source", join(dir, "evaluate.py"), "--params", JSON.stringify([...parseYaml(original).settings, { name: "note", type: "string" }])]);
    expect(other.exitCode, other.stderr).toBe(0);
    writeFileSync(join(dir, "evaluate.py"), code);
    const moved = await oodle(["genai", "templates", "push", dir]);
    expect(moved.exitCode).toBe(4);
    expect(moved.stderr).toContain("pulled version 2, now 3");
    const forced = await oodle(["--json", "genai", "templates", "push", dir, "--force"]);
    expect(forced.exitCode, forced.stderr).toBe(0);
    expect(JSON.parse(forced.stdout).template.version).toBe(4);
  });
});

describe("spans, datasets and experiments", () => {
  it("ingests spans, imports a real dataset, runs an experiment to completion and prints the summary", { timeout: T }, async () => {
    const { oodle } = await refundSetup();
    const dir = mkdtempSync(join(tmpdir(), "oodle-data-"));
    const items = readFileSync(join(ROOT, "test/fixtures/experiment-items.jsonl"), "utf8").split("\n").slice(0, 12).join("\n");
    writeFileSync(join(dir, "items.jsonl"), items);
    const imported = await oodle(["--json", "datasets", "import", "xstest-slice", join(dir, "items.jsonl")]);
    expect(imported.exitCode, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ imported: 12, badLineCount: 0 });

    writeFileSync(
      join(dir, "spans.jsonl"),
      [
        { traceId: "t1", spanId: "s1", name: "chat", input: [{ role: "user", content: "Broken" }], output: "We will refund you.", attributes: { "app.channel": "support" } },
        { traceId: "t1", spanId: "s2", name: "chat", input: "no role" , output: 3, kind: "nonsense" },
      ].map((s) => JSON.stringify(s)).join("\n"),
    );
    const ingested = await oodle(["--json", "spans", "ingest", join(dir, "spans.jsonl")]);
    expect(ingested.exitCode).toBe(2);
    const ingest = JSON.parse(ingested.stdout);
    expect(ingest).toMatchObject({ stored: 1, evaluationsQueued: 1 });
    expect(ingest.rejected[0].line).toBe(2);

    const run = await oodle(["experiments", "run", "--dataset", "xstest-slice", "--evaluator", "Refund mentioned", "--template", "Keyword check"]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/completed: 24\/24 runs \(100\.0%\)/);
    expect(run.stdout).toMatch(/experiment ".*" completed: 12 item\(s\), 12 done, 0 failed/);
    expect(run.stdout).toMatch(/^EVALUATOR\s+SCORE\s+TYPE\s+COUNT\s+MEAN\s+PASS RATE$/m);
    expect(run.stdout).toMatch(/^Refund mentioned\s+\S+\s+BOOLEAN\s+12\s/m);

    const list = await oodle(["--json", "experiments", "list"]);
    const [experiment] = JSON.parse(list.stdout);
    expect(experiment).toMatchObject({ status: "completed", itemCount: 12 });
    const compare = await oodle(["--json", "experiments", "compare", experiment.id, experiment.id]);
    expect(compare.exitCode, compare.stderr).toBe(0);
    expect(JSON.parse(compare.stdout)).toMatchObject({ changeCount: 0, changedItems: 0 });
    // By name too; an unknown name is not found (exit 3) naming the argument.
    const byName = await oodle(["--json", "experiments", "compare", experiment.name, experiment.id]);
    expect(byName.exitCode, byName.stderr).toBe(0);
    expect(JSON.parse(byName.stdout)).toEqual(JSON.parse(compare.stdout));
    const unknown = await oodle(["--json", "experiments", "compare", "no such experiment", experiment.id]);
    expect(unknown.exitCode).toBe(3);
    expect(JSON.parse(unknown.stderr).error).toMatchObject({ code: "NOT_FOUND", field: "base" });
  });
});

describe("shared libraries", () => {
  it("publish, versions, diff; a pulled folder holds the library and push publishes a changed one first", { timeout: T }, async () => {
    const { key } = await service.workspace();
    const oodle = cliRunner(service, key);
    const dir = mkdtempSync(join(tmpdir(), "oodle-lib-"));
    writeFileSync(join(dir, "acme_policy.py"), 'BANNED = ["guarantee"]\n\ndef banned_words(text):\n    return [w for w in BANNED if w in text.lower()]\n');
    expect((await oodle(["genai", "libraries", "publish", "acme_policy", join(dir, "acme_policy.py"), "--note", "first list"])).exitCode).toBe(0);
    writeFileSync(join(dir, "check.py"), 'from shared.acme_policy import banned_words\n\ndef evaluate(ctx):\n    found = banned_words(str(ctx.output))\n    return EvaluationResult(scores=[Score(name="clean", value=not found, comment=", ".join(found))])\n');
    writeFileSync(join(dir, "template.json"), JSON.stringify({ name: "Policy", sourceFile: "check.py" }));
    const created = await oodle(["genai", "templates", "create", "--file", join(dir, "template.json")]);
    expect(created.exitCode, created.stderr).toBe(0);

    const folder = join(dir, "policy");
    expect((await oodle(["genai", "templates", "pull", "Policy", folder])).exitCode).toBe(0);
    expect(readFileSync(join(folder, "shared/acme_policy.py"), "utf8")).toContain('BANNED = ["guarantee"]');
    writeFileSync(join(folder, "shared/acme_policy.py"), 'BANNED = ["guarantee", "promise"]\n\ndef banned_words(text):\n    return [w for w in BANNED if w in text.lower()]\n');
    const pushed = await oodle(["--json", "genai", "templates", "push", folder]);
    expect(pushed.exitCode, pushed.stderr).toBe(0);
    expect(JSON.parse(pushed.stdout).published).toEqual([{ name: "acme_policy", version: 2 }]);

    const span = join(dir, "span.json");
    writeFileSync(span, JSON.stringify({ input: [{ role: "user", content: "Will it work?" }], output: "I promise it will." }));
    const tested = await oodle(["genai", "templates", "test", folder, "--span", span]);
    expect(tested.exitCode, tested.stderr).toBe(0);
    expect(tested.stdout).toMatch(/^clean\s+false\s+BOOLEAN\s+promise$/m);

    const versions = await oodle(["--json", "genai", "libraries", "versions", "acme_policy"]);
    expect(JSON.parse(versions.stdout).map((v: { version: number }) => v.version)).toEqual([2, 1]);
    const diff = await oodle(["genai", "libraries", "diff", "acme_policy", "1", "2"]);
    expect(diff.stdout).toContain('+BANNED = ["guarantee", "promise"]');
    expect(diff.stdout).toContain('-BANNED = ["guarantee"]');
  });
});
