// Evaluators (docs/settings.md § Setting values on an evaluator): values checked on save,
// the page's two-evaluator example, the span rule, archiving, and tenancy.
import { afterAll, describe, expect, it } from "vitest";
import { issuesOf, templatesHarness } from "./helpers.js";

const h = templatesHarness();
afterAll(() => h.app.close());

describe("the page's example: one Keyword check template, two evaluators", () => {
  it("saves 'require refund on support replies' and 'forbid guarantee on sales' and reads them back", async () => {
    const ws = await h.workspace("page-example");
    const template = await ws.keywordTemplate("Keyword check", [
      { name: "required", type: "string_list", label: "Required keywords", description: "The reply must mention each of these.", default: [] },
      { name: "forbidden", type: "string_list", default: [] },
      { name: "mode", type: "enum", options: ["all", "any"], default: "all" },
      { name: "case_sensitive", type: "boolean", default: false },
    ]);
    const support = await ws.createEvaluator({
      name: "Support replies mention refunds",
      templateId: template.id,
      params: { required: ["refund"], mode: "any" },
      spanNamePattern: "support.*",
      attributeEquals: { "app.team": "support" },
    });
    expect(support.error).toBeUndefined();
    const sales = await ws.createEvaluator({
      name: "Sales replies never guarantee",
      templateName: "Keyword check",
      params: { forbidden: ["guarantee"] },
      attributeEquals: { "app.team": "sales" },
      samplingRate: 0.25,
    });
    expect(sales.error).toBeUndefined();

    const read = await ws.gql(`{ evaluators(first: 10) { edges { node {
      name params resolvedParams spanKind spanNamePattern attributeEquals samplingRate enabled followsLatest template { name } } } } }`);
    expect(read.errors).toBeUndefined();
    expect(read.data?.evaluators.edges.map((e: any) => e.node)).toEqual([
      {
        name: "Support replies mention refunds",
        params: { required: ["refund"], mode: "any" },
        resolvedParams: { required: ["refund"], forbidden: [], mode: "any", case_sensitive: false },
        spanKind: "chat",
        spanNamePattern: "support.*",
        attributeEquals: { "app.team": "support" },
        samplingRate: 1,
        enabled: true,
        followsLatest: true,
        template: { name: "Keyword check" },
      },
      {
        name: "Sales replies never guarantee",
        params: { forbidden: ["guarantee"] },
        resolvedParams: { required: [], forbidden: ["guarantee"], mode: "all", case_sensitive: false },
        spanKind: "chat",
        spanNamePattern: null,
        attributeEquals: { "app.team": "sales" },
        samplingRate: 0.25,
        enabled: true,
        followsLatest: true,
        template: { name: "Keyword check" },
      },
    ]);
    const byName = await ws.gql(`{ evaluator(name: "Sales replies never guarantee") { id params } }`);
    expect(byName.data?.evaluator).toEqual({ id: sales.evaluator.id, params: { forbidden: ["guarantee"] } });
    const tmpl = await ws.gql(`query($id: ID!) { template(id: $id) { evaluators(first: 5) { edges { node { name } } } } }`, { id: template.id });
    expect(tmpl.data?.template.evaluators.edges.map((e: any) => e.node.name)).toEqual(["Support replies mention refunds", "Sales replies never guarantee"]);
  });
});

describe("values are checked on save", () => {
  it("refuses a value of the wrong type, naming the setting", async () => {
    const ws = await h.workspace("values-type");
    const template = await ws.keywordTemplate();
    const { error } = await ws.createEvaluator({ name: "e", templateId: template.id, params: { required: "refund", mode: "some", case_sensitive: "no" } });
    expect(error?.extensions?.code).toBe("BAD_USER_INPUT");
    expect(issuesOf(error)).toEqual([
      { path: "params.required", message: 'setting "required" (string_list): the value must be a list of strings' },
      { path: "params.mode", message: 'setting "mode" (enum): the value must be one of the options: "all", "any"' },
      { path: "params.case_sensitive", message: 'setting "case_sensitive" (boolean): the value must be true or false' },
    ]);
  });

  it("refuses a name that the template does not declare", async () => {
    const ws = await h.workspace("values-undeclared");
    const template = await ws.keywordTemplate();
    const { error } = await ws.createEvaluator({ name: "e", templateId: template.id, params: { requried: ["refund"] } });
    expect(error?.extensions?.code).toBe("BAD_USER_INPUT");
    expect(issuesOf(error)).toEqual([{ path: "params.requried", message: 'the template declares no setting "requried"' }]);
  });

  it("refuses a missing required value with no default, and accepts a required one with a default", async () => {
    const ws = await h.workspace("values-required");
    const template = await ws.keywordTemplate("Length", [
      { name: "max_words", type: "integer", required: true },
      { name: "min_words", type: "integer", required: true, default: 1 },
    ]);
    const missing = await ws.createEvaluator({ name: "e", templateId: template.id });
    expect(missing.error?.extensions?.code).toBe("BAD_USER_INPUT");
    expect(issuesOf(missing.error)).toEqual([{ path: "params.max_words", message: 'setting "max_words" is required and has no default: set a value' }]);
    const nulled = await ws.createEvaluator({ name: "e", templateId: template.id, params: { max_words: null } });
    expect(issuesOf(nulled.error)).toEqual([{ path: "params.max_words", message: 'setting "max_words" is required and has no default: set a value' }]);
    const ok = await ws.createEvaluator({ name: "e", templateId: template.id, params: { max_words: 250 } });
    expect(ok.error).toBeUndefined();
    expect(ok.evaluator.resolvedParams).toEqual({ max_words: 250, min_words: 1 });
  });

  it("checks values again on update, also against a new pin", async () => {
    const ws = await h.workspace("values-update");
    const template = await ws.keywordTemplate();
    const created = await ws.createEvaluator({ name: "e", templateId: template.id, params: { mode: "any" } });
    const bad = await ws.updateEvaluator({ id: created.evaluator.id, params: { mode: 3 } });
    expect(issuesOf(bad.error)).toEqual([{ path: "params.mode", message: 'setting "mode" (enum): the value must be one of the options: "all", "any"' }]);
    const good = await ws.updateEvaluator({ id: created.evaluator.id, params: { mode: "all", required: ["x"] }, enabled: false });
    expect(good.evaluator).toMatchObject({ params: { mode: "all", required: ["x"] }, enabled: false });
    const noVersion = await ws.updateEvaluator({ id: created.evaluator.id, pinnedVersion: 7 });
    expect(issuesOf(noVersion.error)).toEqual([{ path: "pinnedVersion", message: 'template "Keyword check" has no version 7 (its latest is 1)' }]);
  });
});

describe("which spans it runs on", () => {
  it("defaults to chat spans, every name, sampling 1", async () => {
    const ws = await h.workspace("span-defaults");
    const template = await ws.keywordTemplate();
    const { evaluator } = await ws.createEvaluator({ name: "e", templateId: template.id });
    expect(evaluator).toMatchObject({ spanKind: "chat", spanNamePattern: null, attributeEquals: {}, samplingRate: 1, enabled: true });
  });

  it("refuses an unknown span kind, a sampling rate outside 0-1 and bad attribute rules, all at once", async () => {
    const ws = await h.workspace("span-rules");
    const template = await ws.keywordTemplate();
    // spanKind is a GraphQL enum: an unknown kind is refused before the rules are read.
    const kind = await ws.createEvaluator({ name: "e", templateId: template.id, spanKind: "llm" });
    expect(kind.error?.extensions?.code).toBe("BAD_USER_INPUT");
    expect(issuesOf(kind.error)).toEqual([{ path: "input.spanKind", message: "must be one of agent, chat, other, retrieval, tool" }]);
    const { error } = await ws.createEvaluator({
      name: "e",
      templateId: template.id,
      samplingRate: 1.5,
      attributeEquals: { "app.team": { nested: true } },
      spanNamePattern: "",
    });
    expect(error?.extensions?.code).toBe("BAD_USER_INPUT");
    expect(issuesOf(error)).toEqual([
      { path: "spanNamePattern", message: "must not be empty (use null to match every name)" },
      { path: "attributeEquals.app.team", message: "must be a string, a number or a boolean" },
      { path: "samplingRate", message: "must be between 0 and 1" },
    ]);
    const negative = await ws.createEvaluator({ name: "e", templateId: template.id, samplingRate: -0.1 });
    expect(issuesOf(negative.error)).toEqual([{ path: "samplingRate", message: "must be between 0 and 1" }]);
    const edges = await ws.createEvaluator({ name: "e", templateId: template.id, samplingRate: 0, spanKind: "tool" });
    expect(edges.error).toBeUndefined();
  });

  it("names are unique among live evaluators", async () => {
    const ws = await h.workspace("eval-names");
    const template = await ws.keywordTemplate();
    await ws.createEvaluator({ name: "e", templateId: template.id });
    const dup = await ws.createEvaluator({ name: "e", templateId: template.id });
    expect(issuesOf(dup.error)).toEqual([{ path: "name", message: 'an evaluator named "e" already exists in this workspace' }]);
  });
});

describe("deleting an evaluator archives it", () => {
  it("keeps it readable by id, frees its name, and lists it only when asked", async () => {
    const ws = await h.workspace("archive");
    const template = await ws.keywordTemplate();
    const { evaluator } = await ws.createEvaluator({ name: "Refund mentioned", templateId: template.id, params: { required: ["refund"] } });
    const del = await ws.gql(`mutation($id: ID!) { deleteEvaluator(input: { id: $id }) { evaluator { archived archivedAt name params } } }`, { id: evaluator.id });
    expect(del.errors).toBeUndefined();
    expect(del.data?.deleteEvaluator.evaluator).toMatchObject({ archived: true, name: "Refund mentioned", params: { required: ["refund"] } });
    const byId = await ws.gql(`query($id: ID!) { evaluator(id: $id) { archived } }`, { id: evaluator.id });
    expect(byId.data?.evaluator.archived).toBe(true);
    const list = await ws.gql(`{ live: evaluators(first: 5) { edges { node { id } } } all: evaluators(first: 5, includeArchived: true) { edges { node { id } } } }`);
    expect(list.data?.live.edges).toEqual([]);
    expect(list.data?.all.edges).toEqual([{ node: { id: evaluator.id } }]);
    const again = await ws.createEvaluator({ name: "Refund mentioned", templateId: template.id });
    expect(again.error).toBeUndefined();
    const update = await ws.updateEvaluator({ id: evaluator.id, enabled: false });
    expect(update.error?.extensions?.code).toBe("NOT_FOUND");
    expect(await h.app.prisma.evaluator.count({ where: { id: Buffer.from(evaluator.id, "base64").toString().split(":")[1] } })).toBe(1);
  });
});

describe("tenancy", () => {
  it("another workspace's templates and evaluators are NOT_FOUND", async () => {
    const a = await h.workspace("tenant-a");
    const b = await h.workspace("tenant-b");
    const template = await b.keywordTemplate();
    const { evaluator } = await b.createEvaluator({ name: "theirs", templateId: template.id });

    const read = await a.gql(`query($id: ID!) { template(id: $id) { name } }`, { id: template.id });
    expect(read.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    const node = await a.gql(`query($t: ID!, $e: ID!) { t: node(id: $t) { id } e: node(id: $e) { id } }`, { t: template.id, e: evaluator.id });
    expect(node.data).toEqual({ t: null, e: null });
    const byName = await a.gql(`{ template(name: "Keyword check") { id } }`);
    expect(byName.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    const version = await a.gql(`query($id: ID!) { templateVersion(templateId: $id) { sourceCode } }`, { id: template.id });
    expect(version.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    const evalRead = await a.gql(`query($id: ID!) { evaluator(id: $id) { name } }`, { id: evaluator.id });
    expect(evalRead.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");

    const useTheirs = await a.createEvaluator({ name: "mine", templateId: template.id });
    expect(useTheirs.error?.extensions?.code).toBe("NOT_FOUND");
    const update = await a.updateTemplate({ id: template.id, description: "hijack" });
    expect(update.error?.extensions?.code).toBe("NOT_FOUND");
    const del = await a.gql(`mutation($id: ID!) { deleteTemplate(input: { id: $id }) { template { id } } }`, { id: template.id });
    expect(del.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    const delEval = await a.gql(`mutation($id: ID!) { deleteEvaluator(input: { id: $id }) { evaluator { id } } }`, { id: evaluator.id });
    expect(delEval.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    const editEval = await a.updateEvaluator({ id: evaluator.id, enabled: false });
    expect(editEval.error?.extensions?.code).toBe("NOT_FOUND");
    const lists = await a.gql(`{ templates(first: 5) { edges { node { id } } } evaluators(first: 5) { edges { node { id } } } }`);
    expect(lists.data).toEqual({ templates: { edges: [] }, evaluators: { edges: [] } });
    const still = await b.gql(`query($id: ID!) { evaluator(id: $id) { enabled archived template { description } } }`, { id: evaluator.id });
    expect(still.data?.evaluator).toEqual({ enabled: true, archived: false, template: { description: "" } });
  });
});
