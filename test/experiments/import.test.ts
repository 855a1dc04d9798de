import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.js";
import { BadUserInputError } from "../../src/lib/errors.js";
import { graphqlClient } from "../helpers.js";
import { FIXTURE, ROOT, createExperimentApp, principalOf } from "./helpers.js";

const GOOD = readFileSync(FIXTURE, "utf8").split("\n").filter(Boolean).slice(0, 6);
/** Six real lines with two bad ones: line 3 is not JSON, line 6 breaks the shape. */
const WITH_BAD_LINES = [GOOD[0], GOOD[1], "{not json", GOOD[2], "", JSON.stringify({ id: "x", tool_calls: [{ arguments: {} }] }), GOOD[3]].join("\n") + "\n";

const stream = (text: string) => Readable.from([Buffer.from(text)]);

describe("dataset import from JSON Lines", () => {
  let app: App;
  let dir: string;
  beforeAll(() => {
    app = createExperimentApp().app;
    dir = mkdtempSync(join(tmpdir(), "oodle-import-"));
  });
  afterAll(async () => app?.close());

  it("imports nothing by default when a line is bad, and names every bad line by number", async () => {
    const { principal } = await principalOf(app, "import");
    const error = await app.services.datasets.importItems(principal, { name: "bad" }, stream(WITH_BAD_LINES)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadUserInputError);
    const issues = (error as BadUserInputError).issues;
    expect(issues[0]).toMatchObject({ path: "line 3" });
    expect(issues[0]!.message).toMatch(/not valid JSON/);
    expect(issues[1]).toEqual({ path: "line 6", message: "tool_calls[0].name: is required" });
    expect(issues.at(-1)!.message).toMatch(/nothing was imported \(2 bad lines\)/);
    // Not even the dataset was created (one transaction).
    expect(await app.prisma.dataset.count({ where: { workspaceId: principal.workspaceId } })).toBe(0);
  });

  it("skips the bad lines when asked and imports the rest in order, keeping every field", async () => {
    const { principal } = await principalOf(app, "import");
    const report = await app.services.datasets.importItems(principal, { name: "skip", mode: "skip" }, stream(WITH_BAD_LINES));
    expect(report).toMatchObject({ imported: 4, itemCount: 4, badLineCount: 2 });
    expect(report.badLines.map((b) => b.line)).toEqual([3, 6]);
    const items = await app.prisma.datasetItem.findMany({ where: { datasetId: report.datasetId }, orderBy: { position: "asc" } });
    const source = [GOOD[0], GOOD[1], GOOD[2], GOOD[3]].map((l) => JSON.parse(l!));
    expect(items.map((i) => i.externalId)).toEqual(source.map((s) => s.id));
    expect(items.map((i) => i.position)).toEqual([0, 1, 2, 3]);
    expect(items[0]).toMatchObject({ input: source[0].input, output: source[0].output, metadata: source[0].metadata, expectedOutput: null, context: null });

    // A second import appends after the last position.
    const again = await app.services.datasets.importItems(principal, { name: "skip" }, stream(`${GOOD[4]}\n`));
    expect(again).toMatchObject({ datasetId: report.datasetId, imported: 1, itemCount: 5 });
  });

  it("streams a 10,000-line file in chunks within one transaction", async () => {
    const { principal } = await principalOf(app, "import");
    const lines = readFileSync(FIXTURE, "utf8").split("\n").filter(Boolean);
    const file = join(dir, "big.jsonl");
    writeFileSync(file, Array.from({ length: 10_000 }, (_, i) => lines[i % lines.length]).join("\n"));
    const report = await app.services.datasets.importItems(principal, { name: "big" }, (await import("node:fs")).createReadStream(file));
    expect(report).toMatchObject({ imported: 10_000, itemCount: 10_000, badLineCount: 0 });
    expect(await app.prisma.datasetItem.count({ where: { datasetId: report.datasetId } })).toBe(10_000);
  });

  it("accepts a GraphQL multipart upload, with both bad-line modes", async () => {
    const { secret } = await principalOf(app, "import");
    const { yoga } = graphqlClient(app);
    const upload = async (skipBadLines: boolean, name: string) => {
      const body = new FormData();
      body.set(
        "operations",
        JSON.stringify({
          query: `mutation ($file: File!, $skip: Boolean) { importDataset(input: { name: "${name}", file: $file, skipBadLines: $skip }) {
            imported badLineCount badLines { line message } dataset { name itemCount } } }`,
          variables: { file: null, skip: skipBadLines },
        }),
      );
      body.set("map", JSON.stringify({ 0: ["variables.file"] }));
      body.set("0", new File([WITH_BAD_LINES], "items.jsonl", { type: "application/x-ndjson" }));
      const response = await yoga.fetch("http://localhost/graphql", { method: "POST", headers: { authorization: `Bearer ${secret}` }, body });
      return (await response.json()) as { data?: any; errors?: { message: string; extensions: any }[] };
    };
    const refused = await upload(false, "upload-abort");
    expect(refused.errors?.[0]?.extensions.code).toBe("BAD_USER_INPUT");
    expect(refused.errors?.[0]?.extensions.issues.slice(0, 2).map((i: { path: string }) => i.path)).toEqual(["line 3", "line 6"]);
    const skipped = await upload(true, "upload-skip");
    expect(skipped.errors).toBeUndefined();
    expect(skipped.data.importDataset).toMatchObject({ imported: 4, badLineCount: 2, dataset: { name: "upload-skip", itemCount: 4 } });
    expect(skipped.data.importDataset.badLines.map((b: { line: number }) => b.line)).toEqual([3, 6]);
  });

  it("has a command: npm run dataset:import -- <name> <file> [--skip-bad-lines]", async () => {
    const workspace = `cli-${randomUUID().slice(0, 8)}`;
    const file = join(dir, "cli.jsonl");
    writeFileSync(file, WITH_BAD_LINES);
    const run = (...args: string[]) => execa(process.execPath, ["--import", "tsx", "scripts/dataset-import.ts", ...args, "--workspace", workspace], { cwd: ROOT, reject: false });
    // A workspace that does not exist is refused, not made (no key could read it).
    const unknown = await run("cli-set", file);
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toContain(`--workspace: no workspace named "${workspace}"`);
    expect(await app.prisma.workspace.count({ where: { name: workspace } })).toBe(0);
    await app.services.workspaces.createWorkspace(workspace);
    const refused = await run("cli-set", file);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain("line 3: not valid JSON");
    expect(refused.stderr).toContain("line 6: tool_calls[0].name: is required");
    const skipped = await run("cli-set", file, "--skip-bad-lines");
    expect(skipped.exitCode).toBe(0);
    expect(skipped.stdout).toContain('imported 4 items into dataset "cli-set"');
    expect(skipped.stdout).toContain("line 3: not valid JSON");
  });
});
