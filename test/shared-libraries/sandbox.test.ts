import { afterAll, describe, expect, it } from "vitest";
import { createExecutor, type ExecuteItem, type ItemResult } from "../../src/execution/index.js";
import { createLogger } from "../../src/lib/logger.js";
import { inspectLibrary } from "../../src/modules/shared-libraries/inspect-library.js";
import type { Principal } from "../../src/lib/principal.js";
import { createTestApp, createTestWorkspace } from "../helpers.js";
import { COOKBOOK_EVALUATOR, acmePolicy } from "./helpers.js";

// The cookbook's "Use a shared library" recipe, end to end through the real sandbox: publish,
// resolve (latest or pinned), run; then a new version reaches the next run of unpinned importers.

const app = createTestApp();
const libs = app.services.sharedLibraries;
const executor = createExecutor({ logger: createLogger("silent"), limits: { cpuTimeMs: 5_000, wallTimeMs: 10_000 } });
afterAll(async () => {
  await executor.close();
  await app.close();
});

async function workspace(label: string): Promise<Principal> {
  const { workspace, apiKey } = await createTestWorkspace(app, label);
  return { workspaceId: workspace.id, apiKeyId: apiKey.id };
}

/** The shared libraries a source imports, found with `ast` as on save. */
async function importsOf(source: string): Promise<string[]> {
  const inspection = await inspectLibrary(source);
  if (!inspection.ok) throw new Error(inspection.error.message);
  return inspection.imports;
}

/** Resolves the source's libraries with `pins` and runs it on one reply per item. */
async function run(p: Principal, source: string, pins: Record<string, number>, replies: string[]) {
  const resolved = await libs.resolveLibraries(p.workspaceId, await importsOf(source), pins);
  const items: ExecuteItem[] = replies.map((output) => ({ workspaceId: p.workspaceId, document: { input: "Can I invest with you?", output } }));
  const results = await executor.execute(
    { workspaceId: p.workspaceId, templateVersionId: "cookbook-template-v1", sourceCode: source, libraries: resolved.libraries, mode: "warm" },
    items,
  );
  return { versions: resolved.versions, results };
}

function policyOk(result: ItemResult): unknown {
  expect(result.error).toBeUndefined();
  expect(result.outcome).toBe("ok");
  return result.scores.find((s) => s.name === "policy_ok")?.value;
}

describe("the cookbook's shared library recipe in the sandbox", () => {
  it("scores with v1's list, then v2's on the next run, while a pin to v1 keeps v1", async () => {
    const p = await workspace("libs-cookbook");
    await libs.publishVersion(p, { name: "acme_policy", sourceCode: acmePolicy(["guarantee", "risk-free", "cannot lose"]), note: "v1" });
    const replies = ["We guarantee a 20% return.", "You can ask for a refund within 30 days.", "Our fees are listed on the website."];

    const v1 = await run(p, COOKBOOK_EVALUATOR, {}, replies);
    expect(v1.versions).toEqual({ acme_policy: 1 });
    expect(v1.results.map(policyOk)).toEqual([false, true, true]);
    expect(v1.results[0]!.scores.map((s) => s.name)).toEqual(["policy_ok", "pii_free"]);

    await libs.publishVersion(p, { name: "acme_policy", sourceCode: acmePolicy(["guarantee", "risk-free", "cannot lose", "refund"]), note: "v2: refund" });
    const v2 = await run(p, COOKBOOK_EVALUATOR, {}, replies);
    expect(v2.versions).toEqual({ acme_policy: 2 });
    expect(v2.results.map(policyOk)).toEqual([false, false, true]);

    const pinned = await run(p, COOKBOOK_EVALUATOR, { acme_policy: 1 }, replies);
    expect(pinned.versions).toEqual({ acme_policy: 1 });
    expect(pinned.results.map(policyOk)).toEqual([false, true, true]);
  });

  it("gives a transitive import its library, at the pinned version when pinned", async () => {
    const p = await workspace("libs-sandbox-transitive");
    await libs.publishVersion(p, { name: "base", sourceCode: "FACTOR = 10\n" });
    await libs.publishVersion(p, { name: "base", sourceCode: "FACTOR = 100\n" });
    await libs.publishVersion(p, { name: "scale", sourceCode: "from oodle_eval.v1 import Score\nfrom shared.base import FACTOR\n\n\ndef scaled(x):\n    return [Score(name='scaled', value=x * FACTOR)]\n" });
    const source = "from shared.scale import scaled\n\n\ndef evaluate(ctx):\n    return EvaluationResult(scores=scaled(4))\n";
    const latest = await run(p, source, {}, ["x"]);
    expect(latest.versions).toEqual({ base: 2, scale: 1 });
    expect(latest.results[0]).toMatchObject({ outcome: "ok", scores: [{ name: "scaled", value: 400 }] });
    const pinned = await run(p, source, { base: 1 }, ["x"]);
    expect(pinned.results[0]).toMatchObject({ outcome: "ok", scores: [{ name: "scaled", value: 40 }] });
  });

  it("reports an import cycle and a missing library as ImportError naming the library", async () => {
    const p = await workspace("libs-sandbox-cycle");
    await libs.publishVersion(p, { name: "a", sourceCode: "X = 1\n" });
    await libs.publishVersion(p, { name: "b", sourceCode: "import shared.a\n" });
    await libs.publishVersion(p, { name: "a", sourceCode: "import shared.b\nX = 2\n" });
    const source = "from shared.a import X\n\n\ndef evaluate(ctx):\n    return EvaluationResult(scores=[Score(name='x', value=X)])\n";
    const cycle = await run(p, source, {}, ["x"]);
    expect(cycle.versions).toEqual({ a: 2, b: 1 });
    expect(cycle.results[0]).toMatchObject({
      outcome: "user_error",
      error: { type: "ImportError", message: expect.stringMatching(/shared library 'a' is part of an import cycle: a -> b -> a/) },
    });
    // Pinning a to v1 (which imports nothing) breaks the cycle.
    const unpinned = await run(p, source, { a: 1 }, ["x"]);
    expect(unpinned.results[0]).toMatchObject({ outcome: "ok", scores: [{ name: "x", value: 1 }] });

    // A library deleted after the template was saved: left out, so the import names it.
    await libs.deleteLibrary(p.workspaceId, "b");
    const missing = await run(p, "from shared.b import anything\n\n\ndef evaluate(ctx):\n    return EvaluationResult(scores=[])\n", {}, ["x"]);
    expect(missing.versions).toEqual({});
    expect(missing.results[0]).toMatchObject({
      outcome: "user_error",
      error: { type: "ImportError", message: expect.stringMatching(/shared library 'b' is not available/) },
    });
  });
});
