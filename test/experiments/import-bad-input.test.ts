import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.js";
import { BadUserInputError } from "../../src/lib/errors.js";
import { OODLE_BIN } from "../cli/service.js";
import { graphqlClient } from "../helpers.js";
import { listen } from "../otlp/helpers.js";
import { FIXTURE, ROOT, createExperimentApp, principalOf } from "./helpers.js";

// The dataset import gets the checks GraphQL variables get, line by line and on every door (the
// service, the GraphQL upload the CLI uses, `npm run dataset:import`, `oodle datasets import`):
// each bad line is named with its number and the rule, never a masked error, and with
// skipBadLines the others are imported. Before: a lone surrogate failed at the database (22P02)
// and a line nested 100,000 deep overflowed the stack, both a masked 500 even when skipping;
// invalid UTF-8 was stored with U+FFFD in place of the bytes.

const GOOD = readFileSync(FIXTURE, "utf8").split("\n").filter(Boolean).slice(0, 3);
const LATIN1 = Buffer.concat([Buffer.from('{"id": "latin1", "input": "caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
const LINES: Buffer[] = [
  Buffer.from(GOOD[0]!),
  Buffer.from('{"id": "surrogate", "input": "\\ud800 half a pair"}'),
  Buffer.from(GOOD[1]!),
  Buffer.from(`{"id": "deep", "input": ${"[".repeat(100_000)}${"]".repeat(100_000)}}`),
  Buffer.from('{"id": "nul", "output": "a\\u0000b"}'),
  LATIN1,
  Buffer.from(`{"id": "long", "input": "${"x".repeat(1_100_000)}"}`),
  Buffer.from('{"id": "inf", "metadata": {"n": 1e400}}'),
  Buffer.from(GOOD[2]!),
];
const FILE = Buffer.concat(LINES.flatMap((line) => [line, Buffer.from("\n")]));

/** The bad lines, by number, and what each says (worked out from the lines above). */
const EXPECTED: { line: number; message: string | RegExp }[] = [
  { line: 2, message: "input: contains a lone UTF-16 surrogate (not valid Unicode; it would be stored changed)" },
  { line: 4, message: /^input(\[0\]){63}: is nested more than 64 levels deep$/ },
  { line: 5, message: "output: must not contain the character U+0000 (PostgreSQL cannot store it)" },
  { line: 6, message: `is not valid UTF-8 (byte 0xe9 at byte ${LATIN1.indexOf(0xe9) + 1}): save the file as UTF-8` },
  { line: 7, message: "the line is longer than 1048576 bytes" },
  { line: 8, message: "metadata.n: must be a finite number (this one is too large to store)" },
];
const GOOD_IDS = GOOD.map((l) => JSON.parse(l).id as string);

function expectBadLines(badLines: { line: number; message: string }[]): void {
  expect(badLines.map((b) => b.line)).toEqual(EXPECTED.map((e) => e.line));
  badLines.forEach((b, i) => {
    const want = EXPECTED[i]!.message;
    if (typeof want === "string") expect(b.message).toBe(want);
    else expect(b.message).toMatch(want);
  });
}

describe("bad lines of a dataset import, door by door", () => {
  let app: App;
  let dir: string;
  let file: string;
  beforeAll(() => {
    app = createExperimentApp().app;
    dir = mkdtempSync(join(tmpdir(), "oodle-import-bad-"));
    file = join(dir, "bad.jsonl");
    writeFileSync(file, FILE);
  });
  afterAll(async () => app?.close());

  const itemIds = async (workspaceId: string) =>
    (await app.prisma.datasetItem.findMany({ where: { workspaceId }, orderBy: { position: "asc" }, select: { externalId: true } })).map((i) => i.externalId);

  it("the service: every bad line named in abort mode (nothing kept), skipped and named with skipBadLines", async () => {
    const { principal } = await principalOf(app, "import-bad");
    const error = await app.services.datasets.importItems(principal, { name: "abort" }, Readable.from([FILE])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BadUserInputError);
    const issues = (error as BadUserInputError).issues;
    expectBadLines(issues.slice(0, EXPECTED.length).map((i) => ({ line: Number(i.path.replace("line ", "")), message: i.message })));
    expect(issues.at(-1)!.message).toBe("nothing was imported (6 bad lines); fix them, or skip bad lines to import the rest");
    expect(await app.prisma.dataset.count({ where: { workspaceId: principal.workspaceId } })).toBe(0);

    // The stream arrives in small chunks too (lines split across them, the long one never held whole).
    const chunks = Array.from({ length: Math.ceil(FILE.length / 4096) }, (_, i) => FILE.subarray(i * 4096, (i + 1) * 4096));
    const report = await app.services.datasets.importItems(principal, { name: "skip", mode: "skip" }, Readable.from(chunks));
    expect(report).toMatchObject({ imported: 3, itemCount: 3, badLineCount: 6 });
    expectBadLines(report.badLines);
    expect(await itemIds(principal.workspaceId)).toEqual(GOOD_IDS);
  });

  it("the GraphQL upload: BAD_USER_INPUT by line, never a masked error; skipBadLines imports the good lines", async () => {
    const { principal, secret } = await principalOf(app, "import-bad");
    const { yoga } = graphqlClient(app);
    const upload = async (skipBadLines: boolean, name: string) => {
      const body = new FormData();
      body.set(
        "operations",
        JSON.stringify({
          query: `mutation ($file: File!, $skip: Boolean) { importDataset(input: { name: "${name}", file: $file, skipBadLines: $skip }) { imported badLineCount badLines { line message } } }`,
          variables: { file: null, skip: skipBadLines },
        }),
      );
      body.set("map", JSON.stringify({ 0: ["variables.file"] }));
      body.set("0", new File([FILE], "items.jsonl", { type: "application/x-ndjson" }));
      const response = await yoga.fetch("http://localhost/graphql", { method: "POST", headers: { authorization: `Bearer ${secret}` }, body });
      return { status: response.status, ...((await response.json()) as { data?: any; errors?: { message: string; extensions: any }[] }) };
    };
    const refused = await upload(false, "upload-abort");
    expect(refused.errors?.map((e) => e.extensions.code)).toEqual(["BAD_USER_INPUT"]);
    const issues = refused.errors![0]!.extensions.issues as { path: string; message: string }[];
    expectBadLines(issues.slice(0, EXPECTED.length).map((i) => ({ line: Number(i.path.replace("line ", "")), message: i.message })));
    const skipped = await upload(true, "upload-skip");
    expect(skipped.errors).toBeUndefined();
    expect(skipped.data.importDataset).toMatchObject({ imported: 3, badLineCount: 6 });
    expectBadLines(skipped.data.importDataset.badLines);
    expect(await itemIds(principal.workspaceId)).toEqual(GOOD_IDS);
  });

  it("npm run dataset:import: exit 1 naming every bad line; --skip-bad-lines imports the rest and lists them", async () => {
    const workspace = `import-bad-${randomUUID().slice(0, 8)}`;
    const { workspace: ws } = await app.services.workspaces.createWorkspace(workspace);
    const run = (...args: string[]) => execa(process.execPath, ["--import", "tsx", "scripts/dataset-import.ts", ...args, "--workspace", workspace], { cwd: ROOT, reject: false });
    const refused = await run("script-set", file);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain("nothing imported:");
    for (const e of EXPECTED) expect(refused.stderr).toMatch(new RegExp(`line ${e.line}: ${typeof e.message === "string" ? escape(e.message) : e.message.source.slice(1, -1)}`));
    const skipped = await run("script-set", file, "--skip-bad-lines");
    expect(skipped.exitCode).toBe(0);
    expect(skipped.stdout).toContain('imported 3 items into dataset "script-set"');
    for (const e of EXPECTED) expect(skipped.stdout).toMatch(new RegExp(`line ${e.line}: ${typeof e.message === "string" ? escape(e.message) : e.message.source.slice(1, -1)}`));
    expect(await itemIds(ws.id)).toEqual(GOOD_IDS);
  });

  it("oodle datasets import: exit 2 naming every bad line; --skip-bad-lines imports the rest and lists them", async () => {
    const { principal, secret } = await principalOf(app, "import-bad");
    const { yoga } = graphqlClient(app);
    const server = await listen(yoga as never);
    try {
      const oodle = (args: string[]) =>
        execa(process.execPath, [OODLE_BIN, ...args], { cwd: ROOT, reject: false, env: { OODLE_API_URL: server.url, OODLE_API_KEY: secret, OODLE_CONFIG_DIR: join(dir, "cli") }, stdin: "ignore" });
      const refused = await oodle(["datasets", "import", "cli-set", file]);
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toContain("error (BAD_USER_INPUT)");
      for (const e of EXPECTED) expect(refused.stderr).toMatch(new RegExp(`line ${e.line}: ${typeof e.message === "string" ? escape(e.message) : e.message.source.slice(1, -1)}`));
      const skipped = await oodle(["datasets", "import", "cli-set", file, "--skip-bad-lines"]);
      expect(skipped.exitCode).toBe(0);
      expect(skipped.stdout).toContain('imported 3 item(s) into "cli-set" (3 in all)');
      for (const e of EXPECTED) expect(skipped.stdout).toMatch(new RegExp(`skipped line ${e.line}: ${typeof e.message === "string" ? escape(e.message) : e.message.source.slice(1, -1)}`));
      expect(await itemIds(principal.workspaceId)).toEqual(GOOD_IDS);
    } finally {
      await server.close();
    }
  });
});

/** `text` as a literal in a RegExp. */
function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
