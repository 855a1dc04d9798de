import { getNamedType, isObjectType } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.js";
import { PAGE_SIZE } from "../../src/graphql/connections.js";
import { schema } from "../../src/graphql-schema.js";
import { createTestApp, createTestWorkspace, graphqlClient } from "../helpers.js";

/** Every connection field of the schema: `Type.field` with its stated maximum. */
function connections(): { type: string; field: string; max: number; description: string }[] {
  const found = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith("__")) continue;
    for (const field of Object.values(type.getFields())) {
      const first = field.args.find((a) => a.name === "first");
      if (!first || !getNamedType(field.type).name.endsWith("Connection")) continue;
      const max = Number(/^At most (\d+)/.exec(first.description ?? "")?.[1]);
      found.push({ type: type.name, field: field.name, max, description: first.description ?? "" });
    }
  }
  return found;
}

// A `first` above a connection's maximum is refused naming the argument and the maximum, and
// the maximum is stated in the schema: never a page cut short without a word.
describe("page sizes of connections", () => {
  let app: App;
  let client: ReturnType<typeof graphqlClient>;
  let secret: string;
  beforeAll(async () => {
    app = createTestApp();
    client = graphqlClient(app);
    ({ secret } = await createTestWorkspace(app, "page-size"));
  });
  afterAll(() => app.close());

  it("states the maximum of first and last on every connection", () => {
    const all = connections();
    expect(all.length).toBeGreaterThanOrEqual(15);
    for (const c of all) expect([`${c.type}.${c.field}`, c.description]).toEqual([`${c.type}.${c.field}`, expect.stringMatching(/^At most \d+ \(default \d+\); more is refused with BAD_USER_INPUT\.$/)]);
    // One stated maximum for all (experiment items allowed 500, so 30 aliases read 15,000 items).
    expect(all.filter((c) => c.max !== PAGE_SIZE.max).map((c) => `${c.type}.${c.field}: ${c.max}`)).toEqual([]);
    expect(PAGE_SIZE.max).toBe(100);
  });

  // The root connections are called directly; connections on objects through their query below.
  const ROOT = connections().filter((c) => c.type === "Query").map((c) => c.field);
  it.each(ROOT)("Query.%s refuses first above its maximum and a negative last with BAD_USER_INPUT naming them", async (field) => {
    const max = connections().find((c) => c.type === "Query" && c.field === field)!.max;
    const above = await client.request(`{ ${field}(first: ${max + 1}) { edges { cursor } } }`, {}, secret);
    expect(above.data ?? null).toBeNull();
    expect(above.errors?.[0]?.extensions).toMatchObject({ code: "BAD_USER_INPUT", issues: [{ path: "first", message: expect.stringContaining(`must be at most ${max}`) }] });
    const huge = await client.request(`{ ${field}(first: 100000) { edges { cursor } } }`, {}, secret);
    expect(huge.errors?.[0]?.message).toBe(`first: must be at most ${max} (the maximum page size of Query.${field}): page with after/before`);
    const negative = await client.request(`{ ${field}(first: 1, last: -1) { edges { cursor } } }`, {}, secret);
    expect(negative.errors?.[0]?.extensions?.issues).toEqual([{ path: "last", message: "must not be negative" }]);
    const atMax = await client.request(`{ ${field}(first: ${max}) { edges { cursor } pageInfo { hasNextPage } } }`, {}, secret);
    expect(atMax.errors).toBeUndefined();
  });

  it("refuses first above the maximum on a connection of an object (Workspace.apiKeys)", async () => {
    const result = await client.request(`{ viewer { workspace { apiKeys(first: ${PAGE_SIZE.max + 1}) { edges { cursor } } } } }`, {}, secret);
    expect(result.errors?.[0]?.extensions).toMatchObject({ code: "BAD_USER_INPUT", issues: [{ path: "first", message: expect.stringContaining(`at most ${PAGE_SIZE.max}`) }] });
  });

  it("answers a cursor this API never gave out with BAD_USER_INPUT, not echoed", async () => {
    const result = await client.request(`{ templates(first: 1, after: "bm90LWEtY3Vyc29y-<b>") { edges { cursor } } }`, {}, secret);
    expect(result.errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");
    expect(JSON.stringify(result.errors)).not.toContain("<b>");
  });
});
