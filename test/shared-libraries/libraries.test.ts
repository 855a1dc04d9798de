import { afterAll, describe, expect, it } from "vitest";
import { createTestApp, createTestWorkspace, graphqlClient } from "../helpers.js";
import { acmePolicy, insertPinningTemplate } from "./helpers.js";

const app = createTestApp();
const client = graphqlClient(app);
afterAll(() => app.close());

const PUBLISH = `mutation($input: PublishSharedLibraryVersionInput!) {
  publishSharedLibraryVersion(input: $input) {
    library { id name description latestVersionNumber deprecated }
    version { id version note imports sourceCode author { name } }
  }
}`;

const LIBRARY = `query($name: String!) {
  sharedLibrary(name: $name) {
    id name latestVersionNumber deprecated deprecatedAt deprecationNote
    latestVersion { version sourceCode }
    versions { edges { node { version note imports sourceCode } } }
    v1: version(version: 1) { version sourceCode }
    v9: version(version: 9) { version }
  }
}`;

async function publish(key: string, input: Record<string, unknown>) {
  return client.request(PUBLISH, { input }, key);
}

describe("publishing shared libraries", () => {
  it("creates the library on the first publish and numbers immutable versions 1, 2, ...", async () => {
    const { secret } = await createTestWorkspace(app, "libs-publish");
    const v1 = await publish(secret, { name: "acme_policy", sourceCode: acmePolicy(["guarantee"]), note: "first", description: "Acme's rules" });
    expect(v1.errors).toBeUndefined();
    expect(v1.data?.publishSharedLibraryVersion).toMatchObject({
      library: { name: "acme_policy", description: "Acme's rules", latestVersionNumber: 1, deprecated: false },
      version: { version: 1, note: "first", imports: [], author: { name: "first key" } },
    });
    const v2 = await publish(secret, { name: "acme_policy", sourceCode: acmePolicy(["guarantee", "refund"]), note: "adds refund" });
    expect(v2.errors).toBeUndefined();
    expect(v2.data?.publishSharedLibraryVersion.version.version).toBe(2);
    // The description is kept when a publish does not give one.
    expect(v2.data?.publishSharedLibraryVersion.library).toMatchObject({ latestVersionNumber: 2, description: "Acme's rules" });

    const read = await client.request(LIBRARY, { name: "acme_policy" }, secret);
    expect(read.errors).toBeUndefined();
    const library = read.data?.sharedLibrary;
    expect(library.latestVersion).toEqual({ version: 2, sourceCode: acmePolicy(["guarantee", "refund"]) });
    expect(library.versions.edges.map((e: any) => [e.node.version, e.node.note])).toEqual([
      [2, "adds refund"],
      [1, "first"],
    ]);
    // Version 1 is unchanged by the publish of version 2.
    expect(library.v1).toEqual({ version: 1, sourceCode: acmePolicy(["guarantee"]) });
    expect(library.v9).toBeNull();

    const list = await client.request(`{ sharedLibraries { totalCount edges { node { name latestVersionNumber } } } }`, {}, secret);
    expect(list.data?.sharedLibraries.edges.map((e: any) => e.node)).toEqual([{ name: "acme_policy", latestVersionNumber: 2 }]);
  });

  it("numbers concurrent publishes without gaps or duplicates", async () => {
    const { secret } = await createTestWorkspace(app, "libs-race");
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => publish(secret, { name: "racy", sourceCode: `X = ${i}\n` })));
    expect(results.map((r) => r.errors)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(results.map((r) => r.data?.publishSharedLibraryVersion.version.version).sort()).toEqual([1, 2, 3, 4, 5]);
  });

  it.each([
    ["Acme", /lower-case letters/],
    ["acme-policy", /lower-case letters/],
    ["1acme", /lower-case letters/],
    ["class", /must not be a Python keyword/],
    ["", /must not be empty/],
    ["a".repeat(65), /at most 64 characters/],
  ])("refuses the name %j at path name", async (name, message) => {
    const { secret } = await createTestWorkspace(app, "libs-badname");
    const res = await publish(secret, { name, sourceCode: "X = 1\n" });
    expect(res.errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");
    expect(res.errors?.[0]?.extensions?.issues).toEqual([{ path: "name", message: expect.stringMatching(message) }]);
  });

  it("refuses a syntax error with its line and column, without running the code", async () => {
    const { secret } = await createTestWorkspace(app, "libs-syntax");
    const res = await publish(secret, { name: "broken", sourceCode: "import os\nos._exit(3)\n\ndef f(:\n    pass\n" });
    expect(res.errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");
    expect(res.errors?.[0]?.extensions?.issues).toEqual([{ path: "sourceCode", message: "syntax error: invalid syntax (line 4, column 7)" }]);
    const read = await client.request(`{ sharedLibraries { totalCount } }`, {}, secret);
    expect(read.data?.sharedLibraries.totalCount).toBe(0);
  });

  it("refuses an empty source, a source over 256 KiB and reports every issue at once", async () => {
    const { secret } = await createTestWorkspace(app, "libs-size");
    const empty = await publish(secret, { name: "Bad", sourceCode: "  \n" });
    expect(empty.errors?.[0]?.extensions?.issues.map((i: any) => i.path)).toEqual(["name", "sourceCode"]);
    const big = await publish(secret, { name: "big", sourceCode: `X = "${"a".repeat(256 * 1024)}"\n` });
    expect(big.errors?.[0]?.extensions?.issues).toEqual([{ path: "sourceCode", message: expect.stringMatching(/at most 256 KiB/) }]);
  });

  it("lets a library import another existing library, and refuses an unknown one or itself, naming it", async () => {
    const { secret } = await createTestWorkspace(app, "libs-imports");
    expect((await publish(secret, { name: "base", sourceCode: "FACTOR = 10\n" })).errors).toBeUndefined();
    const ok = await publish(secret, { name: "scale", sourceCode: "from shared.base import FACTOR\n\ndef scale(x):\n    return x * FACTOR\n" });
    expect(ok.errors).toBeUndefined();
    expect(ok.data?.publishSharedLibraryVersion.version.imports).toEqual(["base"]);

    const unknown = await publish(secret, { name: "other", sourceCode: "import shared.nope\nfrom shared import base, missing_too\n" });
    expect(unknown.errors?.[0]?.extensions?.issues).toEqual([
      { path: "sourceCode", message: 'imports shared.nope, but this workspace has no shared library "nope": publish it first' },
      { path: "sourceCode", message: 'imports shared.missing_too, but this workspace has no shared library "missing_too": publish it first' },
    ]);
    const itself = await publish(secret, { name: "loop", sourceCode: "from shared.loop import x\n" });
    expect(itself.errors?.[0]?.extensions?.issues).toEqual([{ path: "sourceCode", message: "a shared library cannot import itself (shared.loop)" }]);
  });
});

describe("reading shared libraries", () => {
  it("shows the unified diff between two versions", async () => {
    const { secret } = await createTestWorkspace(app, "libs-diff");
    await publish(secret, { name: "acme_policy", sourceCode: acmePolicy(["guarantee", "risk-free", "cannot lose"]) });
    await publish(secret, { name: "acme_policy", sourceCode: acmePolicy(["guarantee", "risk-free", "cannot lose", "refund"]) });
    const res = await client.request(
      `{ sharedLibrary(name: "acme_policy") { diff(from: 1, to: 2) { from to added removed unified } same: diff(from: 2, to: 2) { unified added } } }`,
      {},
      secret,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data?.sharedLibrary.diff).toEqual({
      from: 1,
      to: 2,
      added: 1,
      removed: 1,
      unified: [
        "--- acme_policy v1",
        "+++ acme_policy v2",
        "@@ -1,6 +1,6 @@",
        " from oodle_eval.v1 import metrics",
        " ",
        '-BANNED = ["guarantee","risk-free","cannot lose"]',
        '+BANNED = ["guarantee","risk-free","cannot lose","refund"]',
        " ",
        " ",
        " def policy_check(ctx):",
        "",
      ].join("\n"),
    });
    expect(res.data?.sharedLibrary.same).toEqual({ unified: "", added: 0 });
    const missing = await client.request(`{ sharedLibrary(name: "acme_policy") { diff(from: 1, to: 3) { unified } } }`, {}, secret);
    expect(missing.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    expect(missing.errors?.[0]?.message).toMatch(/acme_policy@3/);
  });

  it("reads another workspace's library as NOT_FOUND, by name and by id", async () => {
    const a = await createTestWorkspace(app, "libs-tenant-a");
    const b = await createTestWorkspace(app, "libs-tenant-b");
    const published = await publish(a.secret, { name: "secret_rules", sourceCode: "X = 1\n" });
    const { library, version } = published.data?.publishSharedLibraryVersion;
    const byName = await client.request(`{ sharedLibrary(name: "secret_rules") { id } }`, {}, b.secret);
    expect(byName.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    const byId = await client.request(`query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, { ids: [library.id, version.id] }, b.secret);
    expect(byId.data?.nodes ?? [null, null]).toEqual([null, null]);
    const list = await client.request(`{ sharedLibraries { totalCount } }`, {}, b.secret);
    expect(list.data?.sharedLibraries.totalCount).toBe(0);
    for (const mutation of [
      `mutation { deprecateSharedLibrary(input: { name: "secret_rules", note: "x" }) { library { id } } }`,
      `mutation { deleteSharedLibrary(input: { name: "secret_rules" }) { name } }`,
    ]) {
      const res = await client.request(mutation, {}, b.secret);
      expect(res.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    }
    // Publishing the same name in workspace b makes b's own library, version 1.
    const own = await publish(b.secret, { name: "secret_rules", sourceCode: "X = 2\n" });
    expect(own.data?.publishSharedLibraryVersion.version.version).toBe(1);
    expect(own.data?.publishSharedLibraryVersion.library.id).not.toBe(library.id);
    // The owner still reads it by id.
    const mine = await client.request(`query($id: ID!) { node(id: $id) { ... on SharedLibrary { name } } }`, { id: library.id }, a.secret);
    expect(mine.data?.node).toEqual({ name: "secret_rules" });
  });
});

describe("deprecating and deleting shared libraries", () => {
  it("deprecates with a note, still publishes, and lifts the deprecation", async () => {
    const { secret } = await createTestWorkspace(app, "libs-deprecate");
    await publish(secret, { name: "old_rules", sourceCode: "X = 1\n" });
    const res = await client.request(
      `mutation { deprecateSharedLibrary(input: { name: "old_rules", note: "use acme_policy" }) { library { deprecated deprecatedAt deprecationNote } } }`,
      {},
      secret,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data?.deprecateSharedLibrary.library).toMatchObject({ deprecated: true, deprecationNote: "use acme_policy" });
    expect(res.data?.deprecateSharedLibrary.library.deprecatedAt).toMatch(/Z$/);
    const without = await client.request(`{ sharedLibraries(includeDeprecated: false) { totalCount } all: sharedLibraries { totalCount } }`, {}, secret);
    expect(without.data).toEqual({ sharedLibraries: { totalCount: 0 }, all: { totalCount: 1 } });
    const v2 = await publish(secret, { name: "old_rules", sourceCode: "X = 2\n" });
    expect(v2.data?.publishSharedLibraryVersion.library).toMatchObject({ latestVersionNumber: 2, deprecated: true });
    const lifted = await client.request(
      `mutation { deprecateSharedLibrary(input: { name: "old_rules", deprecated: false }) { library { deprecated deprecationNote } } }`,
      {},
      secret,
    );
    expect(lifted.data?.deprecateSharedLibrary.library).toEqual({ deprecated: false, deprecationNote: null });
  });

  it("refuses deletion with 409 while a template version pins it, naming the template; deletes once unpinned", async () => {
    const { workspace, secret } = await createTestWorkspace(app, "libs-delete");
    await publish(secret, { name: "acme_policy", sourceCode: acmePolicy(["guarantee"]) });
    await publish(secret, { name: "unpinned", sourceCode: "X = 1\n" });
    const template = await insertPinningTemplate(app, workspace.id, "Support reply policy", { acme_policy: 1 });

    const refused = await client.request(`mutation { deleteSharedLibrary(input: { name: "acme_policy" }) { name } }`, {}, secret);
    expect(refused.status).toBe(409);
    expect(refused.errors?.[0]?.extensions?.code).toBe("CONFLICT");
    expect(refused.errors?.[0]?.message).toMatch(/pinned by 1 template\(s\): "Support reply policy" \(version 1\)/);
    expect(refused.errors?.[0]?.extensions?.details).toEqual([
      { template: "Support reply policy", id: expect.any(String), versions: [1], pinnedVersions: [1] },
    ]);
    const pinnedBy = await client.request(`{ sharedLibrary(name: "acme_policy") { pinnedBy { templateName templateVersions pinnedVersions } } }`, {}, secret);
    expect(pinnedBy.data?.sharedLibrary.pinnedBy).toEqual([{ templateName: "Support reply policy", templateVersions: [1], pinnedVersions: [1] }]);

    // A library nobody pins is deleted with its versions.
    const deleted = await client.request(`mutation { deleteSharedLibrary(input: { name: "unpinned" }) { name deletedId } }`, {}, secret);
    expect(deleted.errors).toBeUndefined();
    expect(deleted.data?.deleteSharedLibrary.name).toBe("unpinned");
    const gone = await client.request(`{ sharedLibrary(name: "unpinned") { id } }`, {}, secret);
    expect(gone.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");

    // Once the pinning template is deleted, the library can go.
    await app.prisma.template.update({ where: { id: template.id }, data: { deletedAt: new Date(), liveName: null } });
    const after = await client.request(`mutation { deleteSharedLibrary(input: { name: "acme_policy" }) { name } }`, {}, secret);
    expect(after.errors).toBeUndefined();
    expect(await app.prisma.sharedLibraryVersion.count({ where: { library: { workspaceId: workspace.id } } })).toBe(0);
  });

  it("is not blocked by another workspace's pins of the same name", async () => {
    const a = await createTestWorkspace(app, "libs-delete-a");
    const b = await createTestWorkspace(app, "libs-delete-b");
    await publish(a.secret, { name: "acme_policy", sourceCode: "X = 1\n" });
    await insertPinningTemplate(app, b.workspace.id, "b's template", { acme_policy: 1 });
    const res = await client.request(`mutation { deleteSharedLibrary(input: { name: "acme_policy" }) { name } }`, {}, a.secret);
    expect(res.errors).toBeUndefined();
  });
});
