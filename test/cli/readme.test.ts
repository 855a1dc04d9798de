import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { ALL_CHECKS_PASS, SHARED_LIBRARY_ACME_POLICY, SHARED_LIBRARY_EVALUATOR } from "../fixtures/cookbook-recipes.js";
import { ROOT, serviceForThisFile } from "./service.js";

// The README's commands as written, run by bash from the repository root against the real service
// on a spare port: "A first session" (curl + jq), then the CLI lines of "The `oodle` CLI and the MCP
// server" and of "Backfills". Only the service's address and the printed key are put in (the
// README's `http://127.0.0.1:4000` and `oodle_sk_…`); `npx oodle` and `oodle` run this
// repository's bin/oodle.js, as `npx` resolves it here. Lines with a placeholder (`<id>`) or an
// optional part (`[--status running]`) are syntax, not commands, and are left out.
const service = serviceForThisFile();

const T = 600_000;
const README = readFileSync(join(ROOT, "README.md"), "utf8");

/** The first ```sh block after `heading` (a line of the README), as text. */
function shBlockAfter(heading: string): string {
  const start = README.indexOf(`\n${heading}\n`);
  expect(start, `README has no heading "${heading}"`).toBeGreaterThan(0);
  const match = /\n *```sh\n([\s\S]*?)\n *```\n/.exec(README.slice(start));
  expect(match, `no sh block after "${heading}"`).not.toBeNull();
  return match![1]!;
}

/** Runs README text with bash (-e: the first command that fails stops it), the service's URL and a key put in. */
async function runAsWritten(script: string, key: string) {
  const preamble = [
    `oodle() { node ${JSON.stringify(join(ROOT, "bin/oodle.js"))} "$@"; }`,
    'npx() { if [ "$1" = oodle ]; then shift; oodle "$@"; else command npx "$@"; fi; }',
  ].join("\n");
  const text = script.replaceAll("http://127.0.0.1:4000", service.url).replaceAll("oodle_sk_…", key);
  expect(text).not.toMatch(/oodle_sk_…|127\.0\.0\.1:4000/);
  const r = await execa("bash", ["-e", "-o", "pipefail", "-c", `${preamble}\n${text}`], {
    cwd: ROOT,
    reject: false,
    env: { PATH: process.env.PATH ?? "", HOME: mkdtempSync(join(tmpdir(), "oodle-readme-home-")), OODLE_CONFIG_DIR: mkdtempSync(join(tmpdir(), "oodle-readme-")) },
    extendEnv: false,
  });
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

describe("the README's commands run as written", () => {
  it("ships the files its steps read: cookbook recipes, verbatim", () => {
    const block = shBlockAfter("## A first session");
    for (const file of [...block.matchAll(/--rawfile \w+ (\S+)/g)].map((m) => m[1]!)) expect(() => readFileSync(join(ROOT, file))).not.toThrow();
    expect(readFileSync(join(ROOT, "examples/my_evaluator.py"), "utf8")).toBe(ALL_CHECKS_PASS);
    expect(readFileSync(join(ROOT, "examples/acme_policy.py"), "utf8")).toBe(SHARED_LIBRARY_ACME_POLICY);
    expect(readFileSync(join(ROOT, "examples/policy_evaluator.py"), "utf8")).toBe(SHARED_LIBRARY_EVALUATOR);
  });

  it("A first session, then the CLI's and the backfills' commands", { timeout: T }, async () => {
    const { key } = await service.workspace("readme");
    const session = shBlockAfter("## A first session");
    const first = await runAsWritten(session, key);
    expect(first.exitCode, first.stderr).toBe(0);
    const answers = first.stdout.trim().split("\n").map((line) => JSON.parse(line) as { data?: any; errors?: unknown });
    expect(answers).toHaveLength([...session.matchAll(/^gql '/gm)].length);
    for (const answer of answers) expect(answer.errors, JSON.stringify(answer)).toBeUndefined();
    const [starters, starter, template, evaluator, ingested, trace, tried, published, policy, stats, failed] = answers.map((a) => a.data);

    expect(starters.starters.edges.map((e: { node: { id: string } }) => e.node.id)).toContain("keyword-check");
    expect(starter.starter.file).toContain("def evaluate(ctx)");
    expect(template.createTemplateFromStarter.template.name).toBe("Keyword check");
    expect(evaluator.createEvaluator.evaluator).toMatchObject({ name: "Support replies mention refunds", resolvedParams: { required: ["refund"], mode: "any" } });
    expect(ingested.ingestSpans).toEqual({ evaluationsQueued: 1, rejected: [] });
    expect(trace.trace.spans).toMatchObject([{ kind: "chat" }]);
    // "All checks pass" on "We guarantee it.": the forbidden word fails keyword_check, so safe_reply is false.
    expect(tried.tryCode).toMatchObject({ outcome: "ok", error: null });
    expect(Object.fromEntries(tried.tryCode.scores.map((s: { name: string; value: unknown }) => [s.name, s.value]))).toMatchObject({ keywords_ok: false, safe_reply: false, pii_free: true });
    expect(published.publishSharedLibraryVersion.version.version).toBe(1);
    expect(policy.tryCode).toMatchObject({ outcome: "ok", libraryVersions: { acme_policy: 1 } });
    expect(policy.tryCode.scores.find((s: { name: string }) => s.name === "policy_ok").value).toBe(false); // "risk-free" is banned
    expect(stats.evaluators.edges.map((e: { node: { name: string } }) => e.node.name)).toEqual(["Support replies mention refunds"]);
    expect(failed.runs.edges).toEqual([]);

    // The span's live score, read with step 3's own query once the run is in (a deadline that catches a hang, not slowness).
    const traceQuery = /^gql '(\{ trace\(traceId: "t1"\)[^']*)'$/m.exec(session)![1]!;
    let scores: { name: string; value: unknown }[] = [];
    for (const deadline = Date.now() + 240_000; scores.length === 0 && Date.now() < deadline; ) {
      const response = await fetch(`${service.url}/graphql`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body: JSON.stringify({ query: traceQuery }) });
      scores = ((await response.json()) as any).data.trace.spans[0].scores;
      if (scores.length === 0) await new Promise((r) => setTimeout(r, 500));
    }
    expect(scores).toMatchObject([{ name: "keywords_ok", value: true }]);

    // The CLI lines (they read the evaluator the session made), then the backfills' lines that are
    // commands (not those with <id> or [optional] parts), in the same shell: they use its export.
    const cliBlock = shBlockAfter("### The `oodle` CLI and the MCP server");
    const backfills = shBlockAfter("- **CLI** (Oodle's `backfills` commands; also as `oodle genai backfills`):")
      .split("\n")
      .filter((line) => !/[<[]/.test(line.replace(/#.*$/, "")))
      .join("\n");
    expect(backfills.split("\n")).toHaveLength(6);
    const cli = await runAsWritten(`${cliBlock}\necho "--- backfills"\n${backfills}`, key);
    expect(cli.exitCode, cli.stderr).toBe(0);
    const [commands, run] = cli.stdout.split("\n--- backfills\n") as [string, string];
    expect(commands).toMatch(/^keyword-check\s+Keyword check\s+required, forbidden, mode, case_sensitive$/m);
    expect(commands).toMatch(/^name:\s+Support replies mention refunds$/m);
    expect(commands).toMatch(/^values set:\n {2}mode = "any"\n {2}required = \["refund"\]$/m);
    // --sample-rate 0.1 draws the one span or not (a draw per span); either way its live run is there: nothing to run without --rerun.
    expect(run).toMatch(/^[01] span\(s\) in \S+ – \S+: 0 run\(s\) to record$/m);
    expect(run).toMatch(/^status:\s+completed$/m);
    expect(run).toMatch(/^progress:\s+1\/1 spans \(100\.0%\), 1\/1 batches, 0 runs, 1 skipped, 0 replaced$/m);
    expect(run).toMatch(/^queued backfill "Support replies mention refunds [^"]+" \(\S+\) over 1 span\(s\): 1 run\(s\)$/m); // --sample-rate 1 wins over the file's 0.5
  });
});
