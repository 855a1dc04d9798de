// Model prices (src/modules/judges/price-service.ts) over GraphQL and the service against the real
// database: the table in force (built-in rows, a workspace's rows over them), set as an upsert,
// delete and what applies after it, the input rules naming the field, the row limit, and
// overridesOf feeding costOf for the judge executor.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.js";
import { MAX_MODEL_PRICES_PER_WORKSPACE } from "../../src/modules/judges/price-schemas.js";
import { BUILTIN_PRICES, costOf } from "../../src/modules/judges/prices.js";
import { createTestApp, createTestWorkspace, graphqlClient } from "../helpers.js";

const FIELDS = "model inputUsdPerMillion outputUsdPerMillion source updatedAt";
const LIST = `{ modelPrices { ${FIELDS} } }`;
const SET = `mutation($input: SetModelPriceInput!) { setModelPrice(input: $input) { price { ${FIELDS} } } }`;
const DELETE = `mutation($input: DeleteModelPriceInput!) { deleteModelPrice(input: $input) { deleted { ${FIELDS} } appliesNow { ${FIELDS} } } }`;

type Row = { model: string; inputUsdPerMillion: number; outputUsdPerMillion: number; source: "workspace" | "builtin"; updatedAt: string | null };

describe("model prices", () => {
  let app: App;
  let gql: ReturnType<typeof graphqlClient>;
  beforeAll(() => {
    app = createTestApp();
    gql = graphqlClient(app);
  });
  afterAll(() => app.close());

  async function list(secret: string): Promise<Row[]> {
    const answer = await gql.request(LIST, {}, secret);
    expect(answer.errors, JSON.stringify(answer.errors)).toBeUndefined();
    return answer.data!.modelPrices;
  }
  async function set(secret: string, input: Record<string, unknown>): Promise<Row> {
    const answer = await gql.request(SET, { input }, secret);
    expect(answer.errors, JSON.stringify(answer.errors)).toBeUndefined();
    return answer.data!.setModelPrice.price;
  }

  it("lists the built-in prices for a workspace that set none, by model name", async () => {
    const { secret } = await createTestWorkspace(app, "prices-builtin");
    const rows = await list(secret);
    expect(rows.map((r) => r.model)).toEqual([...BUILTIN_PRICES.keys()].sort());
    expect(rows.every((r) => r.source === "builtin" && r.updatedAt === null)).toBe(true);
    expect(rows.find((r) => r.model === "gpt-4o-mini")).toEqual({ model: "gpt-4o-mini", inputUsdPerMillion: 0.15, outputUsdPerMillion: 0.6, source: "builtin", updatedAt: null });
    expect(rows.find((r) => r.model === "claude-opus-4-0")).toMatchObject({ inputUsdPerMillion: 15, outputUsdPerMillion: 75 });
  });

  it("sets a workspace's price (an upsert) that replaces the built-in row, and overridesOf gives it to costOf", async () => {
    const { secret, workspace } = await createTestWorkspace(app, "prices-set");
    const first = await set(secret, { model: "gpt-4o-mini", inputUsdPerMillion: 1, outputUsdPerMillion: 2 });
    expect(first).toMatchObject({ model: "gpt-4o-mini", inputUsdPerMillion: 1, outputUsdPerMillion: 2, source: "workspace" });
    expect(Date.parse(first.updatedAt!)).toBeGreaterThan(Date.now() - 60_000);
    // Set again: the same row, new prices.
    const second = await set(secret, { model: "gpt-4o-mini", inputUsdPerMillion: 0.2, outputUsdPerMillion: 0.8 });
    expect(second).toMatchObject({ inputUsdPerMillion: 0.2, outputUsdPerMillion: 0.8, source: "workspace" });
    // A model the built-in table lacks, its name trimmed as other names are.
    expect(await set(secret, { model: "  llama3.2 ", inputUsdPerMillion: 0, outputUsdPerMillion: 0 })).toMatchObject({ model: "llama3.2", inputUsdPerMillion: 0, outputUsdPerMillion: 0, source: "workspace" });

    const rows = await app.prisma.modelPrice.findMany({ where: { workspaceId: workspace.id }, orderBy: { model: "asc" } });
    expect(rows.map((r) => [r.model, r.inputUsdPerMillion, r.outputUsdPerMillion])).toEqual([["gpt-4o-mini", 0.2, 0.8], ["llama3.2", 0, 0]]);

    const listed = await list(secret);
    expect(listed.filter((r) => r.model === "gpt-4o-mini")).toEqual([{ model: "gpt-4o-mini", inputUsdPerMillion: 0.2, outputUsdPerMillion: 0.8, source: "workspace", updatedAt: second.updatedAt }]);
    expect(listed.find((r) => r.model === "llama3.2")).toMatchObject({ source: "workspace" });
    expect(listed.filter((r) => r.source === "builtin")).toHaveLength(BUILTIN_PRICES.size - 1);
    expect(listed.map((r) => r.model)).toEqual([...listed.map((r) => r.model)].sort());

    // What the judge executor does: one query, then the pure costOf.
    const overrides = await app.services.modelPrices.overridesOf(workspace.id);
    expect([...overrides]).toEqual(expect.arrayContaining([["gpt-4o-mini", { inputUsdPerMillion: 0.2, outputUsdPerMillion: 0.8 }], ["llama3.2", { inputUsdPerMillion: 0, outputUsdPerMillion: 0 }]]));
    expect(overrides.size).toBe(2);
    // 1234 × 0.2/1e6 + 567 × 0.8/1e6 = 0.0002468 + 0.0004536
    expect(costOf("gpt-4o-mini-2024-07-18", { inputTokens: 1234, outputTokens: 567 }, overrides)).toEqual({ costUsd: 0.0007004, priceSource: "workspace" });
    expect(costOf("gpt-4o", { inputTokens: 1234, outputTokens: 567 }, overrides)).toEqual({ costUsd: 0.008755, priceSource: "builtin" }); // 0.003085 + 0.00567
    expect(costOf("mixtral", { inputTokens: 1, outputTokens: 1 }, overrides)).toEqual({ costUsd: null, priceSource: null });
  });

  it("keeps each workspace's prices its own", async () => {
    const a = await createTestWorkspace(app, "prices-a");
    const b = await createTestWorkspace(app, "prices-b");
    await set(a.secret, { model: "gpt-4o", inputUsdPerMillion: 9, outputUsdPerMillion: 9 });
    await set(a.secret, { model: "a-only-model", inputUsdPerMillion: 1, outputUsdPerMillion: 1 });
    expect((await app.services.modelPrices.overridesOf(b.workspace.id)).size).toBe(0);
    const seenByB = await list(b.secret);
    expect(seenByB.find((r) => r.model === "gpt-4o")).toMatchObject({ inputUsdPerMillion: 2.5, source: "builtin" });
    expect(seenByB.find((r) => r.model === "a-only-model")).toBeUndefined();
    // B deleting A's model: B set none.
    const gone = await gql.request(DELETE, { input: { model: "a-only-model" } }, b.secret);
    expect(gone.errors?.map((e) => e.extensions?.code)).toEqual(["NOT_FOUND"]);
    expect(await app.prisma.modelPrice.count({ where: { workspaceId: a.workspace.id } })).toBe(2);
  });

  it("deletes a workspace's price and says what applies now; NOT_FOUND for one it never set", async () => {
    const { secret, workspace } = await createTestWorkspace(app, "prices-delete");
    await set(secret, { model: "gpt-4o-mini", inputUsdPerMillion: 1, outputUsdPerMillion: 2 });
    await set(secret, { model: "gpt-4o-mini-2024-07-18", inputUsdPerMillion: 3, outputUsdPerMillion: 4 });
    await set(secret, { model: "llama3.2", inputUsdPerMillion: 0, outputUsdPerMillion: 0 });

    // The dated name's own row goes: the workspace's gpt-4o-mini row prices it now.
    let answer = await gql.request(DELETE, { input: { model: "gpt-4o-mini-2024-07-18" } }, secret);
    expect(answer.errors).toBeUndefined();
    expect(answer.data!.deleteModelPrice).toMatchObject({ deleted: { model: "gpt-4o-mini-2024-07-18", inputUsdPerMillion: 3, outputUsdPerMillion: 4, source: "workspace" }, appliesNow: { model: "gpt-4o-mini", inputUsdPerMillion: 1, outputUsdPerMillion: 2, source: "workspace" } });
    // The override of a built-in row goes: the built-in one applies again.
    answer = await gql.request(DELETE, { input: { model: "gpt-4o-mini" } }, secret);
    expect(answer.data!.deleteModelPrice).toMatchObject({ deleted: { model: "gpt-4o-mini", source: "workspace" }, appliesNow: { model: "gpt-4o-mini", inputUsdPerMillion: 0.15, outputUsdPerMillion: 0.6, source: "builtin", updatedAt: null } });
    // A model only the workspace priced: no price now.
    answer = await gql.request(DELETE, { input: { model: "llama3.2" } }, secret);
    expect(answer.data!.deleteModelPrice).toMatchObject({ deleted: { model: "llama3.2" }, appliesNow: null });
    expect(await app.prisma.modelPrice.count({ where: { workspaceId: workspace.id } })).toBe(0);
    expect((await list(secret)).every((r) => r.source === "builtin")).toBe(true);

    // Never set (again), and a built-in row (it cannot be deleted, only replaced).
    for (const [model, hint] of [["llama3.2", "modelPrices lists them"], ["gpt-4o", "can be replaced with setModelPrice, not deleted"]] as const) {
      const refused = await gql.request(DELETE, { input: { model } }, secret);
      expect(refused.errors?.map((e) => e.extensions?.code)).toEqual(["NOT_FOUND"]);
      expect(refused.errors![0]!.message).toContain(`model price "${model}" not found`);
      expect(refused.errors![0]!.message).toContain(hint);
      expect(refused.data?.deleteModelPrice ?? null).toBeNull();
    }
  });

  it("refuses bad input naming each field and rule", async () => {
    const { secret, workspace } = await createTestWorkspace(app, "prices-input");
    const refused = async (input: Record<string, unknown>) => {
      const answer = await gql.request(SET, { input }, secret);
      expect(answer.errors?.[0]?.extensions?.code, JSON.stringify(answer)).toBe("BAD_USER_INPUT");
      return answer.errors![0]!.extensions!.issues as { path: string; message: string }[];
    };
    expect(await refused({ model: "", inputUsdPerMillion: -0.01, outputUsdPerMillion: 10_000.5 })).toEqual([
      { path: "model", message: "must not be empty" },
      { path: "inputUsdPerMillion", message: "must be at least 0" },
      { path: "outputUsdPerMillion", message: "must be at most 10000" },
    ]);
    expect(await refused({ model: "x".repeat(201), inputUsdPerMillion: 0, outputUsdPerMillion: 0 })).toEqual([{ path: "model", message: "must be at most 200 characters" }]);
    expect((await refused({ model: "gpt\u200B-4o", inputUsdPerMillion: 1, outputUsdPerMillion: 1 }))[0]).toMatchObject({ path: "model" });
    // The GraphQL layer's own refusal of a wrong type names the field too.
    const wrongType = await gql.request(SET, { input: { model: "m", inputUsdPerMillion: "cheap", outputUsdPerMillion: 1 } }, secret);
    expect(wrongType.errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");
    expect(JSON.stringify(wrongType.errors)).toContain("inputUsdPerMillion");
    // The edges are accepted: 0 and 10,000, a name of 200 characters.
    expect(await set(secret, { model: "y".repeat(200), inputUsdPerMillion: 0, outputUsdPerMillion: 10_000 })).toMatchObject({ inputUsdPerMillion: 0, outputUsdPerMillion: 10_000 });
    expect(await app.prisma.modelPrice.count({ where: { workspaceId: workspace.id } })).toBe(1);

    const empty = await gql.request(DELETE, { input: { model: "  " } }, secret);
    expect(empty.errors?.[0]?.extensions).toMatchObject({ code: "BAD_USER_INPUT", issues: [{ path: "model", message: "must not be empty" }] });
  });

  it(`refuses a price past ${MAX_MODEL_PRICES_PER_WORKSPACE} rows; changing one of them still works`, async () => {
    const { secret, workspace } = await createTestWorkspace(app, "prices-limit");
    await app.prisma.modelPrice.createMany({ data: Array.from({ length: MAX_MODEL_PRICES_PER_WORKSPACE }, (_, i) => ({ workspaceId: workspace.id, model: `m-${i}`, inputUsdPerMillion: 1, outputUsdPerMillion: 1 })) });
    const past = await gql.request(SET, { input: { model: "one-more", inputUsdPerMillion: 1, outputUsdPerMillion: 1 } }, secret);
    expect(past.errors?.[0]?.extensions?.code).toBe("LIMIT_EXCEEDED");
    expect(past.errors![0]!.message).toContain(`at most ${MAX_MODEL_PRICES_PER_WORKSPACE} model prices`);
    expect(await set(secret, { model: "m-7", inputUsdPerMillion: 2, outputUsdPerMillion: 3 })).toMatchObject({ model: "m-7", inputUsdPerMillion: 2 });
    expect(await app.prisma.modelPrice.count({ where: { workspaceId: workspace.id } })).toBe(MAX_MODEL_PRICES_PER_WORKSPACE);
    // The whole table is one answer within the read cost.
    expect(await list(secret)).toHaveLength(MAX_MODEL_PRICES_PER_WORKSPACE + BUILTIN_PRICES.size);
  });
});
