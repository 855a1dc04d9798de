// tryCode takes a line of ../shared/data/*/items.jsonl as `document` (the same
// mapping as dataset import, so the draft sees what an experiment sees), and a stored dataset
// item by id. Through GraphQL and the sandbox.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMPARE_WITH_REFERENCE } from "../fixtures/cookbook-recipes.js";
import { LIVE_ITEMS, liveHarness } from "./helpers.js";

let h: Awaited<ReturnType<typeof liveHarness>>;
beforeAll(async () => {
  h = await liveHarness({ startWorker: false, label: "try-items" });
});
afterAll(() => h.close());

const TRY = `mutation($input: TryCodeInput!) { tryCode(input: $input) { outcome scores { name value } error { message } } }`;

describe("tryCode on dataset items", () => {
  it("accepts an items.jsonl line and a stored item, with the experiment's document", async () => {
    const ws = await h.workspace();
    const line = { ...LIVE_ITEMS[0]!, expected_output: LIVE_ITEMS[0]!.output };
    const inline = await ws.gql(TRY, { input: { sourceCode: COMPARE_WITH_REFERENCE, document: line } });
    expect(inline.errors).toBeUndefined();
    expect(inline.data!.tryCode.outcome).toBe("ok");
    expect(inline.data!.tryCode.scores[0]).toEqual({ name: "exact_match", value: true });

    const file = join(mkdtempSync(join(tmpdir(), "i13-")), "items.jsonl");
    writeFileSync(file, JSON.stringify(line) + "\n");
    const { createReadStream } = await import("node:fs");
    const report = await h.app.services.datasets.importItems(ws.principal, { name: "one", mode: "abort" }, createReadStream(file));
    const item = await h.app.prisma.datasetItem.findFirstOrThrow({ where: { datasetId: report.datasetId } });
    const stored = await ws.gql(TRY, { input: { sourceCode: COMPARE_WITH_REFERENCE, datasetItemId: Buffer.from(`DatasetItem:${item.id}`).toString("base64") } });
    expect(stored.errors).toBeUndefined();
    expect(stored.data!.tryCode.scores).toEqual(inline.data!.tryCode.scores);

    // A line that breaks the items.jsonl shape is refused at its field.
    const bad = await ws.gql(TRY, { input: { sourceCode: COMPARE_WITH_REFERENCE, document: { ...line, tool_calls: "nope" } } });
    expect(bad.errors![0]!.extensions).toMatchObject({ code: "BAD_USER_INPUT", issues: [{ path: expect.stringMatching(/^document\.tool_calls/) }] });
  });
});
