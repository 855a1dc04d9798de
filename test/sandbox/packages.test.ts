import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Executor, ItemResult, Outcome } from "../../src/execution/index.js";
import { buildBwrapArgs } from "../../src/execution/bwrap-args.js";
import { defaultSandboxPaths, SANDBOX_PACKAGES_MANIFEST } from "../../src/execution/paths.js";
import { PACKAGES_INSIDE, resolveSandboxPackages } from "../../src/execution/sandbox-packages.js";
import { item, keyFor, TEST_LIMITS, testExecutor } from "./helpers.js";

// One exploit per curated package (sandbox/packages.json): each imports the package inside the
// sandbox, uses it on a normal item, and on the attack item tries to reopen something that the
// seccomp and mount layers close.
const DIR = join(import.meta.dirname, "package-exploits");
const source = (file: string) => readFileSync(join(DIR, file), "utf8");

interface Case {
  file: string;
  pkg: string;
  outcome: Outcome;
  error: string | RegExp;
  message?: RegExp;
}

const CASES: Case[] = [
  { file: "phonenumbers_write_package.py", pkg: "phonenumbers", outcome: "user_error", error: /^(OSError|PermissionError)$/, message: /Read-only file system|Permission denied/ },
  { file: "jsonschema_remote_ref.py", pkg: "jsonschema", outcome: "user_error", error: /RefResolutionError|PermissionError|URLError/, message: /Operation not permitted|Permission/ },
  { file: "yaml_unsafe_load.py", pkg: "yaml", outcome: "user_error", error: "PermissionError" },
  { file: "dateutil_read_host_files.py", pkg: "dateutil", outcome: "user_error", error: "FileNotFoundError", message: /\/etc\/passwd/ },
  { file: "regex_catastrophic.py", pkg: "regex", outcome: "timeout", error: "ItemTimeout" },
  { file: "numpy_threads_and_proc.py", pkg: "numpy", outcome: "user_error", error: "PermissionError" },
  { file: "nltk_read_host_files.py", pkg: "nltk", outcome: "user_error", error: /^(FileNotFoundError|LookupError)$/, message: /\/etc\/passwd/ },
  { file: "only_curated_packages.py", pkg: "(none)", outcome: "user_error", error: "ModuleNotFoundError", message: /cryptography/ },
];

let executor: Executor;
/** For the case that expects a timeout: small limits, so it ends quickly. */
let tight: Executor;
const outputs: ItemResult[] = [];

beforeAll(() => {
  executor = testExecutor();
  tight = testExecutor(TEST_LIMITS);
});
afterAll(async () => {
  await Promise.all([executor.close(), tight.close()]);
});

describe("curated packages inside the sandbox", () => {
  const packages = resolveSandboxPackages(SANDBOX_PACKAGES_MANIFEST);

  it("lists at least the seven packages the README documents, each with a version", () => {
    expect(packages.map((p) => p.import)).toEqual(expect.arrayContaining(["phonenumbers", "jsonschema", "yaml", "dateutil", "regex", "numpy", "nltk"]));
    for (const p of packages) expect(p.version).toMatch(/^\d+(\.\d+)+/);
    const readme = readFileSync(join(import.meta.dirname, "..", "..", "README.md"), "utf8");
    for (const p of packages) expect(readme).toContain(`| \`${p.import}\` | ${p.version} | ${p.debian} |`);
  });

  it("binds each entry read-only on its own, and nothing else of dist-packages", () => {
    const args = buildBwrapArgs(defaultSandboxPaths(), { tmpfsBytes: 1 << 20 }, 4);
    const binds = args.flatMap((a, i) => (a === "--ro-bind" ? [[args[i + 1]!, args[i + 2]!] as const] : []));
    const fromDist = binds.filter(([src]) => src.startsWith("/usr/lib/python3/dist-packages/"));
    const expected = packages.flatMap((p) => p.binds).filter((b) => b.dest.startsWith(PACKAGES_INSIDE));
    // Every dist-packages bind is a listed package entry (seccomp's module is the runner's own).
    expect(fromDist.filter(([, dest]) => !dest.startsWith("/sandbox/seccomp-module/"))).toEqual(expected.map((b) => [b.source, b.dest]));
    expect(args).not.toContain("/usr/lib/python3/dist-packages");
    // Package data (NLTK's WordNet) is bound read-only at its own path, and nothing else of /usr/share.
    const shared = binds.filter(([, dest]) => dest.startsWith("/usr/share/"));
    expect(shared).toEqual([["/usr/share/wordnet", "/usr/share/wordnet"]]);
    expect(args.filter((a) => a === "--bind" || a === "--dev-bind").length).toBeLessThanOrEqual(2);
  });

  it("binds the reference BLAS and LAPACK whatever alternative the host selected (OpenBLAS with python3-scipy)", () => {
    const numpy = packages.find((p) => p.import === "numpy")!;
    const alternatives = numpy.binds.filter((b) => b.dest.startsWith("/etc/alternatives/"));
    expect(alternatives.map((b) => b.dest).sort()).toEqual([
      expect.stringMatching(/^\/etc\/alternatives\/libblas\.so\.3-/),
      expect.stringMatching(/^\/etc\/alternatives\/liblapack\.so\.3-/),
    ]);
    for (const bind of alternatives) expect(bind.source).toMatch(/\/(blas\/libblas|lapack\/liblapack)\.so\.3/);
  });

  it.each(CASES.map((c) => [c.file, c] as const))("%s", async (_name, c) => {
    const key = keyFor(source(c.file), { templateVersionId: c.file });
    // Generous limits unless the case is about time (importing numpy on a busy machine takes a while).
    const [normal, attack, after] = await (c.outcome === "timeout" ? tight : executor).execute(key, [item({ attack: false }), item({ attack: true }), item({ attack: false })]);
    outputs.push(normal!, attack!, after!);
    expect({ outcome: normal!.outcome, error: normal!.error }).toMatchObject({ outcome: "ok" });
    expect(attack!.scores.map((s) => s.name)).not.toContain("escaped");
    expect({ outcome: attack!.outcome, error: attack!.error }).toMatchObject({ outcome: c.outcome });
    if (typeof c.error === "string") expect(attack!.error?.type).toBe(c.error);
    else expect(attack!.error?.type).toMatch(c.error);
    if (c.message) expect(attack!.error?.message).toMatch(c.message);
    expect(after!.outcome).toBe("ok");
  });

  it("has one exploit per listed package", () => {
    const files = readdirSync(DIR).filter((f) => f.endsWith(".py"));
    expect(files.sort()).toEqual(CASES.map((c) => c.file).sort());
    for (const file of files) expect(source(file)).toMatch(/^# .+\n(# .+\n)*# Contained by: /m);
    expect(new Set(CASES.map((c) => c.pkg))).toEqual(new Set([...packages.map((p) => p.import), "(none)"]));
  });

  it("pii_leak finds phone numbers inside the sandbox (phonenumbers is importable there)", async () => {
    const code = [
      "from oodle_eval.v1 import metrics",
      "def evaluate(ctx):",
      "    return EvaluationResult(scores=metrics.pii_leak(ctx))",
    ].join("\n");
    const [result] = await executor.execute(keyFor(code, { templateVersionId: "pii" }), [
      { workspaceId: "ws-test", document: { output: "Phone:\n0490 75 40 81, or +41 (0)69 979 80 58-Fax" }, params: {} },
    ]);
    expect(result!.outcome).toBe("ok");
    expect(result!.scores[0]).toMatchObject({ name: "pii_free", value: false });
    expect((result!.scores[0]!.metadata as { entity_types_found: string[] }).entity_types_found).toEqual(["PHONE_NUMBER"]);
  });
});
