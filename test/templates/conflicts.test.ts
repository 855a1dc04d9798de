// The 409 rule (docs/settings.md § Changing the settings of a template) and deletion.
import { afterAll, describe, expect, it } from "vitest";
import { KEYWORD_PARAMS, SOURCE, templatesHarness } from "./helpers.js";

const h = templatesHarness();
afterAll(() => h.app.close());

type Ws = Awaited<ReturnType<typeof h.workspace>>;

/** A keyword template and evaluators with the given values. */
async function withEvaluators(ws: Ws, evaluators: Record<string, Record<string, unknown>>) {
  const template = await ws.keywordTemplate();
  const ids: Record<string, string> = {};
  for (const [name, params] of Object.entries(evaluators)) {
    const { evaluator, error } = await ws.createEvaluator({ name, templateId: template.id, params });
    if (error) throw new Error(error.message);
    ids[name] = evaluator.id;
  }
  return { template, ids };
}

function replaceSpec(name: string, spec: Record<string, unknown> | null) {
  return KEYWORD_PARAMS.flatMap((p) => (p.name === name ? (spec ? [spec] : []) : [p]));
}

async function expectConflict(ws: Ws, templateId: string, params: unknown, details: { evaluator: string; reason: string }[]) {
  const { res, error } = await ws.updateTemplate({ id: templateId, params });
  expect(res.status).toBe(409);
  expect(error?.extensions?.code).toBe("CONFLICT");
  expect(error?.extensions?.details.map((d: any) => ({ evaluator: d.evaluator, reason: d.reason }))).toEqual(details);
  for (const d of details) expect(error?.message).toContain(`"${d.evaluator}" (${d.reason})`);
  expect(error?.message).toMatch(/Change their values first, then change the template\.$/);
  const read = await ws.gql(`query($id: ID!) { template(id: $id) { latestVersionNumber } }`, { id: templateId });
  expect(read.data?.template.latestVersionNumber).toBe(1);
  return error!;
}

describe("the 409 rule", () => {
  it("refuses removing a setting that an evaluator sets, naming it", async () => {
    const ws = await h.workspace("409-removed");
    const { template } = await withEvaluators(ws, { "Uses mode": { mode: "any" }, "No mode": { required: ["refund"] } });
    await expectConflict(ws, template.id, replaceSpec("mode", null), [
      { evaluator: "Uses mode", reason: 'holds a value for "mode", a setting that the new settings remove' },
    ]);
  });

  it("refuses changing the type of a setting that an evaluator sets", async () => {
    const ws = await h.workspace("409-type");
    const { template } = await withEvaluators(ws, { "Refund mentioned": { required: ["refund"] } });
    await expectConflict(ws, template.id, replaceSpec("required", { name: "required", type: "string" }), [
      { evaluator: "Refund mentioned", reason: 'holds ["refund"] for "required", which the new settings do not accept: it must be a string (type string)' },
    ]);
  });

  it("refuses enum options that no longer hold an evaluator's value", async () => {
    const ws = await h.workspace("409-enum");
    const { template } = await withEvaluators(ws, { "Any mode": { mode: "any" }, "All mode": { mode: "all" } });
    await expectConflict(ws, template.id, replaceSpec("mode", { name: "mode", type: "enum", options: ["all", "none"], default: "all" }), [
      { evaluator: "Any mode", reason: 'holds "any" for "mode", which the new settings do not accept: it must be one of the options: "all", "none" (type enum)' },
    ]);
  });

  it("refuses making a setting required with no default when an evaluator sets no value", async () => {
    const ws = await h.workspace("409-required");
    const { template } = await withEvaluators(ws, { "Sets it": { required: ["a"] }, "Relies on default": {} });
    await expectConflict(ws, template.id, replaceSpec("required", { name: "required", type: "string_list", required: true }), [
      { evaluator: "Relies on default", reason: 'sets no value for "required", which the new settings make required with no default' },
    ]);
  });

  it("lists every evaluator with every reason, in one 409", async () => {
    const ws = await h.workspace("409-many");
    const { template, ids } = await withEvaluators(ws, {
      Alpha: { mode: "any", case_sensitive: true },
      Beta: { required: ["x"] },
      Gamma: {},
    });
    const params = [
      { name: "required", type: "string", required: true },
      { name: "mode", type: "enum", options: ["all"], default: "all" },
    ];
    const error = await expectConflict(ws, template.id, params, [
      {
        evaluator: "Alpha",
        reason:
          'holds "any" for "mode", which the new settings do not accept: it must be one of the options: "all" (type enum); ' +
          'holds a value for "case_sensitive", a setting that the new settings remove; ' +
          'sets no value for "required", which the new settings make required with no default',
      },
      { evaluator: "Beta", reason: 'holds ["x"] for "required", which the new settings do not accept: it must be a string (type string)' },
      { evaluator: "Gamma", reason: 'sets no value for "required", which the new settings make required with no default' },
    ]);
    expect(error.extensions!.details.map((d: any) => d.id)).toEqual([ids.Alpha, ids.Beta, ids.Gamma]);
    expect(error.extensions!.details[0].reasons).toHaveLength(3);
  });

  it("accepts the change once the evaluators' values are fixed", async () => {
    const ws = await h.workspace("409-fix");
    const { template, ids } = await withEvaluators(ws, { "Uses mode": { mode: "any" } });
    await expectConflict(ws, template.id, replaceSpec("mode", null), [
      { evaluator: "Uses mode", reason: 'holds a value for "mode", a setting that the new settings remove' },
    ]);
    await ws.updateEvaluator({ id: ids["Uses mode"], params: {} });
    const { template: updated, error } = await ws.updateTemplate({ id: template.id, params: replaceSpec("mode", null) });
    expect(error).toBeUndefined();
    expect(updated.latestVersionNumber).toBe(2);
    expect(updated.latestVersion.params.map((p: any) => p.name)).toEqual(["required", "case_sensitive"]);
  });

  it("a change of default applies to every evaluator that does not set its own value", async () => {
    const ws = await h.workspace("409-default");
    const { template, ids } = await withEvaluators(ws, { Own: { mode: "any" }, Inherits: {} });
    const { error } = await ws.updateTemplate({ id: template.id, params: replaceSpec("mode", { name: "mode", type: "enum", options: ["all", "any"], default: "any" }) });
    expect(error).toBeUndefined();
    const read = await ws.gql(`query($a: ID!, $b: ID!) { a: evaluator(id: $a) { resolvedParams } b: evaluator(id: $b) { resolvedParams } }`, { a: ids.Own, b: ids.Inherits });
    expect(read.data?.a.resolvedParams.mode).toBe("any");
    expect(read.data?.b.resolvedParams.mode).toBe("any");
    await ws.updateTemplate({ id: template.id, params: replaceSpec("mode", { name: "mode", type: "enum", options: ["all", "any"], default: "all" }) });
    const again = await ws.gql(`query($a: ID!, $b: ID!) { a: evaluator(id: $a) { resolvedParams } b: evaluator(id: $b) { resolvedParams } }`, { a: ids.Own, b: ids.Inherits });
    expect(again.data?.a.resolvedParams.mode).toBe("any");
    expect(again.data?.b.resolvedParams.mode).toBe("all");
  });

  it("evaluators pinned to a version and archived evaluators are not in the way", async () => {
    const ws = await h.workspace("409-pinned");
    const { template, ids } = await withEvaluators(ws, { Pinned: { mode: "any" }, Archived: { mode: "any" } });
    await ws.updateEvaluator({ id: ids.Pinned, pinnedVersion: 1 });
    await ws.gql(`mutation($id: ID!) { deleteEvaluator(input: { id: $id }) { evaluator { id } } }`, { id: ids.Archived });
    const { template: updated, error } = await ws.updateTemplate({ id: template.id, params: replaceSpec("mode", null) });
    expect(error).toBeUndefined();
    expect(updated.latestVersionNumber).toBe(2);
    const pinned = await ws.gql(`query($id: ID!) { evaluator(id: $id) { templateVersion { version } resolvedParams } }`, { id: ids.Pinned });
    expect(pinned.data?.evaluator).toEqual({ templateVersion: { version: 1 }, resolvedParams: { required: [], mode: "any", case_sensitive: false } });
    // Unpinning checks the values against the latest version.
    const unpin = await ws.updateEvaluator({ id: ids.Pinned, pinnedVersion: null });
    expect(unpin.error?.extensions?.issues).toEqual([{ path: "params.mode", message: 'the template declares no setting "mode"' }]);
  });
});

describe("template versions", () => {
  it("each save of code or settings makes version N+1; name and description alone do not", async () => {
    const ws = await h.workspace("versions");
    const template = await ws.keywordTemplate();
    const same = await ws.updateTemplate({ id: template.id, sourceCode: SOURCE, params: KEYWORD_PARAMS, description: "new words" });
    expect(same.template).toMatchObject({ latestVersionNumber: 1, description: "new words" });
    const code = await ws.updateTemplate({ id: template.id, sourceCode: SOURCE + "\n# v2\n" });
    expect(code.template.latestVersionNumber).toBe(2);
    const settings = await ws.updateTemplate({ id: template.id, params: [], name: "Renamed" });
    expect(settings.template).toMatchObject({ latestVersionNumber: 3, name: "Renamed" });
    const history = await ws.gql(`query($id: ID!) { template(id: $id) { versions(first: 10) { edges { node { version params { name } sourceCode } } } version(version: 1) { params { name } } } }`, { id: template.id });
    expect(history.data?.template.versions.edges.map((e: any) => [e.node.version, e.node.params.length, e.node.sourceCode.endsWith("# v2\n")])).toEqual([
      [3, 0, true],
      [2, 3, true],
      [1, 3, false],
    ]);
    expect(history.data?.template.version.params.map((p: any) => p.name)).toEqual(["required", "mode", "case_sensitive"]);
    const v1 = await ws.gql(`{ templateVersion(templateName: "Renamed", version: 1) { version template { name } } }`);
    expect(v1.data?.templateVersion).toEqual({ version: 1, template: { name: "Renamed" } });
  });

  it("a bad save changes nothing", async () => {
    const ws = await h.workspace("versions-atomic");
    const template = await ws.keywordTemplate();
    const { error } = await ws.updateTemplate({ id: template.id, name: "New name", sourceCode: "def evaluate(:\n" });
    expect(error?.extensions?.code).toBe("BAD_USER_INPUT");
    const read = await ws.gql(`query($id: ID!) { template(id: $id) { name latestVersionNumber } }`, { id: template.id });
    expect(read.data?.template).toEqual({ name: "Keyword check", latestVersionNumber: 1 });
  });

  it("template names are unique among live templates", async () => {
    const ws = await h.workspace("template-names");
    await ws.keywordTemplate("Same");
    const { error } = await ws.createTemplate({ name: "Same", sourceCode: SOURCE });
    expect(error?.extensions?.issues).toEqual([{ path: "name", message: 'a template named "Same" already exists in this workspace' }]);
  });
});

describe("deleting a template", () => {
  it("is refused with 409 while evaluators use it, naming them; allowed once they are archived", async () => {
    const ws = await h.workspace("delete-template");
    const { template, ids } = await withEvaluators(ws, { "Support replies": { required: ["refund"] }, "Sales replies": {} });
    const del = `mutation($id: ID!) { deleteTemplate(input: { id: $id }) { template { id deletedAt } } }`;
    const refused = await ws.gql(del, { id: template.id });
    expect(refused.status).toBe(409);
    expect(refused.errors?.[0]?.extensions?.code).toBe("CONFLICT");
    expect(refused.errors?.[0]?.message).toBe(
      'template "Keyword check" is used by 2 evaluator(s): "Sales replies", "Support replies". Delete them or move them to another template first.',
    );
    expect(refused.errors?.[0]?.extensions?.details.map((d: any) => d.evaluator)).toEqual(["Sales replies", "Support replies"]);

    for (const id of Object.values(ids)) await ws.gql(`mutation($id: ID!) { deleteEvaluator(input: { id: $id }) { evaluator { id } } }`, { id });
    const done = await ws.gql(del, { id: template.id });
    expect(done.errors).toBeUndefined();
    expect(done.data?.deleteTemplate.template.deletedAt).toEqual(expect.any(String));

    // History stays readable: the archived evaluator still shows its template and version.
    const archived = await ws.gql(`query($id: ID!) { evaluator(id: $id) { archived template { name deletedAt } templateVersion { version } } }`, { id: ids["Support replies"] });
    expect(archived.data?.evaluator).toMatchObject({ archived: true, template: { name: "Keyword check" }, templateVersion: { version: 1 } });
    const list = await ws.gql(`{ templates(first: 5) { edges { node { id } } } }`);
    expect(list.data?.templates.edges).toEqual([]);
    const byName = await ws.gql(`{ template(name: "Keyword check") { id } }`);
    expect(byName.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    // The name is free again.
    const again = await ws.createTemplate({ name: "Keyword check", sourceCode: SOURCE });
    expect(again.error).toBeUndefined();
  });
});

describe("concurrent saves", () => {
  it("a settings change and evaluator saves never pass each other's checks", async () => {
    const ws = await h.workspace("409-race");
    const template = await ws.keywordTemplate();
    const removeMode = KEYWORD_PARAMS.filter((p) => p.name !== "mode");
    const results = await Promise.all([
      ...Array.from({ length: 4 }, (_, i) => ws.createEvaluator({ name: `e${i}`, templateId: template.id, params: { mode: "any" } })),
      ws.updateTemplate({ id: template.id, params: removeMode }),
      ...Array.from({ length: 4 }, (_, i) => ws.createEvaluator({ name: `f${i}`, templateId: template.id, params: { mode: "any" } })),
    ]);
    const update = results[4]!;
    const created = results.filter((r, i) => i !== 4 && !r.error).length;
    const read = await ws.gql(`query($id: ID!) { template(id: $id) { latestVersionNumber latestVersion { params { name } } evaluators(first: 20) { edges { node { params } } } } }`, { id: template.id });
    const latest = read.data?.template;
    const names = latest.latestVersion.params.map((p: any) => p.name);
    // Every live evaluator that follows the latest version holds only values the latest settings accept.
    for (const edge of latest.evaluators.edges) for (const key of Object.keys(edge.node.params)) expect(names).toContain(key);
    if (update.error) {
      expect(update.error.extensions?.code).toBe("CONFLICT");
      expect(latest.latestVersionNumber).toBe(1);
      expect(created).toBeGreaterThan(0);
    } else {
      expect(latest.latestVersionNumber).toBe(2);
    }
  });
});
