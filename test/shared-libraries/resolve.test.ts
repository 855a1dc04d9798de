import { afterAll, describe, expect, it } from "vitest";
import type { Principal } from "../../src/lib/principal.js";
import { createTestApp, createTestWorkspace } from "../helpers.js";

const app = createTestApp();
const libs = app.services.sharedLibraries;
afterAll(() => app.close());

async function workspace(label: string): Promise<Principal> {
  const { workspace, apiKey } = await createTestWorkspace(app, label);
  return { workspaceId: workspace.id, apiKeyId: apiKey.id };
}

describe("validateImportsAndPins", () => {
  it("accepts existing imports and pins, and names a missing library or version", async () => {
    const p = await workspace("resolve-validate");
    await libs.publishVersion(p, { name: "acme_policy", sourceCode: "BANNED = []\n" });
    await libs.publishVersion(p, { name: "acme_policy", sourceCode: "BANNED = ['x']\n" });
    expect(await libs.validateImportsAndPins(p.workspaceId, ["acme_policy"], { acme_policy: 2 })).toEqual([]);
    expect(await libs.validateImportsAndPins(p.workspaceId, ["acme_policy", "nope", "Bad"], { acme_policy: 3, gone: 1, acme: 0 })).toEqual([
      { path: "sourceCode", message: 'imports shared.nope, but this workspace has no shared library "nope": publish it first' },
      { path: "sourceCode", message: 'imports shared.Bad, but this workspace has no shared library "Bad": publish it first' },
      { path: "libraryPins.acme_policy", message: 'pins version 3 of shared library "acme_policy", which does not exist (its latest version is 2)' },
      { path: "libraryPins.gone", message: 'pins shared library "gone", which does not exist in this workspace' },
      { path: "libraryPins.acme", message: "must be a version number (a whole number, 1 or more)" },
    ]);
  });

  it("does not see another workspace's libraries", async () => {
    const a = await workspace("resolve-validate-a");
    const b = await workspace("resolve-validate-b");
    await libs.publishVersion(a, { name: "only_in_a", sourceCode: "X = 1\n" });
    const issues = await libs.validateImportsAndPins(b.workspaceId, ["only_in_a"], { only_in_a: 1 });
    expect(issues.map((i) => i.path)).toEqual(["sourceCode", "libraryPins.only_in_a"]);
  });

  it("can lock the libraries inside the caller's transaction", async () => {
    const p = await workspace("resolve-lock");
    await libs.publishVersion(p, { name: "locked", sourceCode: "X = 1\n" });
    const issues = await app.prisma.$transaction((tx) => libs.validateImportsAndPins(p.workspaceId, ["locked"], { locked: 1 }, { db: tx, lock: true }));
    expect(issues).toEqual([]);
  });
});

describe("resolveLibraries", () => {
  it("resolves direct and transitive imports at the latest version, and follows new publishes", async () => {
    const p = await workspace("resolve-transitive");
    await libs.publishVersion(p, { name: "base", sourceCode: "FACTOR = 10\n" });
    await libs.publishVersion(p, { name: "scale", sourceCode: "from shared.base import FACTOR\n" });
    await libs.publishVersion(p, { name: "unrelated", sourceCode: "X = 1\n" });
    const first = await libs.resolveLibraries(p.workspaceId, ["scale"], {});
    expect(first).toEqual({
      libraries: { base: { version: 1, source: "FACTOR = 10\n" }, scale: { version: 1, source: "from shared.base import FACTOR\n" } },
      versions: { base: 1, scale: 1 },
    });
    await libs.publishVersion(p, { name: "base", sourceCode: "FACTOR = 20\n" });
    expect((await libs.resolveLibraries(p.workspaceId, ["scale"], {})).versions).toEqual({ base: 2, scale: 1 });
  });

  it("applies the template's pins to direct and transitive imports", async () => {
    const p = await workspace("resolve-pins");
    await libs.publishVersion(p, { name: "base", sourceCode: "FACTOR = 10\n" });
    await libs.publishVersion(p, { name: "base", sourceCode: "FACTOR = 20\n" });
    await libs.publishVersion(p, { name: "scale", sourceCode: "from shared.base import FACTOR\n" });
    await libs.publishVersion(p, { name: "extra", sourceCode: "Y = 1\n" });
    await libs.publishVersion(p, { name: "scale", sourceCode: "from shared.base import FACTOR\nfrom shared import extra\n" });
    // The transitive imports are those of the pinned version (scale v1 does not import extra).
    const pinned = await libs.resolveLibraries(p.workspaceId, ["scale"], { scale: 1, base: 1 });
    expect(pinned.versions).toEqual({ base: 1, scale: 1 });
    expect(pinned.libraries.base!.source).toBe("FACTOR = 10\n");
    const latest = await libs.resolveLibraries(p.workspaceId, ["scale"], { base: 1 });
    expect(latest.versions).toEqual({ base: 1, extra: 1, scale: 2 });
  });

  it("leaves a missing library (or pinned version) out, for the sandbox to name in its ImportError", async () => {
    const p = await workspace("resolve-missing");
    await libs.publishVersion(p, { name: "present", sourceCode: "X = 1\n" });
    const resolved = await libs.resolveLibraries(p.workspaceId, ["present", "absent", "Not-A-Name"], {});
    expect(resolved.versions).toEqual({ present: 1 });
    expect((await libs.resolveLibraries(p.workspaceId, ["present"], { present: 7 })).versions).toEqual({});
  });

  it("terminates on an import cycle, giving every library of the cycle once", async () => {
    const p = await workspace("resolve-cycle");
    await libs.publishVersion(p, { name: "a", sourceCode: "X = 1\n" });
    await libs.publishVersion(p, { name: "b", sourceCode: "import shared.a\n" });
    await libs.publishVersion(p, { name: "a", sourceCode: "import shared.b\n" });
    await libs.publishVersion(p, { name: "c", sourceCode: "from shared import a, b\n" });
    expect((await libs.resolveLibraries(p.workspaceId, ["a"], {})).versions).toEqual({ a: 2, b: 1 });
    expect((await libs.resolveLibraries(p.workspaceId, ["c", "b"], {})).versions).toEqual({ a: 2, b: 1, c: 1 });
    // Pinning a to v1 (no imports) breaks the cycle.
    expect((await libs.resolveLibraries(p.workspaceId, ["b"], { a: 1 })).versions).toEqual({ a: 1, b: 1 });
  });

  it("never resolves another workspace's library", async () => {
    const a = await workspace("resolve-tenant-a");
    const b = await workspace("resolve-tenant-b");
    await libs.publishVersion(a, { name: "rules", sourceCode: "X = 'a'\n" });
    expect(await libs.resolveLibraries(b.workspaceId, ["rules"], {})).toEqual({ libraries: {}, versions: {} });
  });
});
