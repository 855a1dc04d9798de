import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { encodeGlobalID } from "@pothos/plugin-relay";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../src/app.js";
import { opentelemetry } from "../../src/modules/otlp/generated/otlp.js";
import { OODLE_BIN, ROOT } from "../cli/service.js";
import { createTestApp, createTestWorkspace, graphqlClient } from "../helpers.js";
import { listen } from "../otlp/helpers.js";

// The input rules of every door (issue 35, point 4; src/lib/text-rules.ts and the README's
// "Input rules"). Before, each of these was accepted and stored as sent: whitespace-only span ids,
// span names and score names; right-to-left overrides and zero-width characters in names; 2 MiB
// values in attributeEquals and in scores[].metadata; invalid UTF-8 (stored as U+FFFD).

const { ExportTraceServiceRequest, ExportTraceServiceResponse } = opentelemetry.proto.collector.trace.v1;
const RLO = "\u202E";
const ZWSP = "\u200B";

describe("input rules, door by door", () => {
  let app: App;
  let client: ReturnType<typeof graphqlClient>;
  let server: Awaited<ReturnType<typeof listen>>;
  let secret: string;
  let workspaceId: string;
  let principal: { workspaceId: string; apiKeyId: string };
  beforeAll(async () => {
    app = createTestApp();
    client = graphqlClient(app);
    server = await listen(client.yoga as never);
    const ws = await createTestWorkspace(app, "input-rules");
    [secret, workspaceId] = [ws.secret, ws.workspace.id];
    principal = { workspaceId, apiKeyId: ws.apiKey.id };
  });
  afterAll(async () => {
    await server?.close();
    await app?.close();
  });

  const gql = (query: string, variables: Record<string, unknown> = {}) => client.request(query, variables, secret);
  const issuesOf = (result: { errors?: { extensions?: Record<string, any> }[] }) => result.errors?.[0]?.extensions?.issues as { path: string; message: string }[] | undefined;

  it("GraphQL ingestSpans: refuses whitespace-only ids and names, and invisible characters in names, by field", async () => {
    const result = await gql("mutation ($s: [JSON!]!) { ingestSpans(input: {spans: $s}) { spans { index spanId } rejected { index issues { path message } } } }", {
      s: [
        { traceId: "  ", spanId: "\t", parentSpanId: " ", name: "   " },
        { traceId: "t", spanId: "rlo", name: `refund${RLO}dnuf` },
        { traceId: "t", spanId: "zwsp", name: `exact${ZWSP}match` },
        { traceId: "t", spanId: `id${ZWSP}`, name: "fine" },
        { traceId: "t", spanId: "emoji", name: "👩\u200D💻 support" },
      ],
    });
    expect(result.errors).toBeUndefined();
    const { spans, rejected } = (result.data as any).ingestSpans;
    expect(spans).toEqual([{ index: 4, spanId: "emoji" }]);
    const blank = "must not be empty (it is only whitespace)";
    expect(rejected).toEqual([
      { index: 0, issues: [{ path: "traceId", message: blank }, { path: "spanId", message: blank }, { path: "parentSpanId", message: blank }, { path: "name", message: blank }] },
      { index: 1, issues: [{ path: "name", message: "must not contain the bidirectional control U+202E (character 7): it makes a name display as another" }] },
      { index: 2, issues: [{ path: "name", message: "must not contain the invisible character U+200B (character 6): it makes a name display as another" }] },
      { index: 3, issues: [{ path: "spanId", message: "must not contain the invisible character U+200B (character 3): it makes a name display as another" }] },
    ]);
  });

  it("GraphQL: names of evaluators, templates and datasets follow the rule; attributeEquals values are at most 1,000 characters", async () => {
    const template = await gql('mutation { createTemplate(input: {name: "Policy\u200B", sourceCode: "def evaluate(ctx):\\n    return EvaluationResult(scores=[])\\n"}) { template { id } } }');
    expect(issuesOf(template)).toEqual([{ path: "name", message: "must not contain the invisible character U+200B (character 7): it makes a name display as another" }]);
    const dataset = await gql(`mutation { createDataset(input: {name: "${RLO}stesatad"}) { dataset { id } } }`);
    expect(issuesOf(dataset)).toEqual([{ path: "name", message: "must not contain the bidirectional control U+202E (character 1): it makes a name display as another" }]);
    const created = await app.services.templates.createTemplateFromStarter(principal, "keyword-check");
    const evaluator = await gql("mutation ($input: CreateEvaluatorInput!) { createEvaluator(input: $input) { evaluator { id } } }", {
      input: { name: `Refund${RLO}`, templateId: encodeGlobalID("Template", created.template.id), attributeEquals: { "app.channel": "c".repeat(2 * 1024 * 1024), "app.ok": "support" } },
    });
    expect(issuesOf(evaluator)).toEqual(
      expect.arrayContaining([
        { path: "name", message: "must not contain the bidirectional control U+202E (character 7): it makes a name display as another" },
        { path: "attributeEquals.app.channel", message: "must be at most 1000 characters" },
      ]),
    );
    expect(await app.prisma.evaluator.count({ where: { workspaceId } })).toBe(0);
  });

  it("GraphQL submitScores: blank or invisible score names and 2 MiB of metadata are refused, as a code evaluator's would be", async () => {
    const created = await app.services.evaluators.createEvaluator(principal, { name: "Human review", kind: "external" });
    await gql("mutation { ingestSpans(input: {spans: [{traceId: \"t\", spanId: \"reviewed\", name: \"chat\"}]}) { spans { id } } }");
    const span = await app.prisma.span.findFirstOrThrow({ where: { workspaceId, spanId: "reviewed" } });
    const submit = (scores: unknown[]) =>
      gql("mutation ($s: ID!, $scores: [PostedScoreInput!]!) { submitScores(input: {spanId: $s, evaluator: \"Human review\", scores: $scores}) { run { id } } }", { s: encodeGlobalID("Span", span.id), scores });
    const result = await submit([
      { name: "   ", value: 1 },
      { name: `helpful${ZWSP}`, value: true },
      { name: "notes", value: 1, metadata: { text: "m".repeat(2 * 1024 * 1024) } },
    ]);
    expect(issuesOf(result)).toEqual([
      { path: "scores[0].name", message: "must not be empty (it is only whitespace)" },
      { path: "scores[1].name", message: "must not contain the invisible character U+200B (character 8): it makes a name display as another" },
      { path: "scores[2].metadata", message: `must be at most 16384 bytes of JSON (got ${2 * 1024 * 1024 + 11}), as a code evaluator's score metadata` },
    ]);
    expect(await app.prisma.run.count({ where: { evaluatorId: created.id } })).toBe(0);
    expect((await submit([{ name: "helpful", value: true, metadata: { note: "short" } }])).errors).toBeUndefined();
  });

  it("a code evaluator's score named with whitespace only is an invalid result (try_code)", async () => {
    const result = await gql('mutation { tryCode(input: {sourceCode: "def evaluate(ctx):\\n    return EvaluationResult(scores=[Score(name=\\"   \\", value=1)])\\n", document: {output: "x"}}) { outcome error { type message } } }');
    expect((result.data as any).tryCode).toEqual({ outcome: "invalid_result", error: { type: "ScoreError", message: "score name '   ': must not be empty (it is only whitespace)" } });
  });

  it("GraphQL over HTTP: a JSON body that is not UTF-8 is refused with the byte, not stored as U+FFFD", async () => {
    const body = Buffer.concat([Buffer.from('{"query": "mutation { createDataset(input: {name: \\"caf'), Buffer.from([0xe9]), Buffer.from('\\"}) { dataset { id } } }"}')]);
    const response = await fetch(`${server.url}/graphql`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${secret}` }, body: body as BodyInit });
    expect(response.status).toBe(400);
    const answer = (await response.json()) as { errors: { extensions: Record<string, unknown> }[] };
    expect(answer.errors[0]!.extensions).toMatchObject({ code: "BAD_USER_INPUT", issues: [{ path: "body", message: `is not valid UTF-8 (byte 0xe9 at byte ${body.indexOf(0xe9) + 1})` }] });
    expect(await app.prisma.dataset.count({ where: { workspaceId } })).toBe(0);
  });

  it("OTLP: a blank or overridden span name is a rejected span; a string that is not UTF-8 is a 400", async () => {
    const span = (spanId: string, name: string) => ({ traceId: Buffer.from("5b8efff798038103d269b633813fc60c", "hex"), spanId: Buffer.from(spanId, "hex"), name, startTimeUnixNano: "1767225600000000000" });
    const encode = (spans: unknown[]) => Buffer.from(ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject({ resourceSpans: [{ scopeSpans: [{ spans }] }] })).finish());
    const post = (body: Buffer) => fetch(`${server.url}/v1/traces`, { method: "POST", headers: { "content-type": "application/x-protobuf", authorization: `Bearer ${secret}` }, body: body as BodyInit });
    const mixed = await post(encode([span("aaaaaaaaaaaaaaa1", "   "), span("aaaaaaaaaaaaaaa2", `chat${RLO}`), span("aaaaaaaaaaaaaaa3", "chat")]));
    expect(mixed.status).toBe(200);
    const answer = ExportTraceServiceResponse.decode(new Uint8Array(await mixed.arrayBuffer()));
    expect(Number(answer.partialSuccess!.rejectedSpans)).toBe(2);
    expect(answer.partialSuccess!.errorMessage).toContain('spans[0] (span aaaaaaaaaaaaaaa1 "   "): name: must not be empty (it is only whitespace)');
    expect(answer.partialSuccess!.errorMessage).toContain("name: must not contain the bidirectional control U+202E (character 5)");
    expect(await app.prisma.span.count({ where: { workspaceId, spanId: { startsWith: "aaaaaaaaaaaaaaa" } } })).toBe(1);

    // The protobuf of a span named "XXXX" with those four bytes replaced by Latin-1 "café" (0xe9 is not UTF-8 alone).
    const latin1 = encode([span("aaaaaaaaaaaaaaa4", "XXXX")]);
    latin1.set([0x63, 0x61, 0x66, 0xe9], latin1.indexOf("XXXX"));
    const refused = await post(latin1);
    expect(refused.status).toBe(400);
    const json = await fetch(`${server.url}/v1/traces`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${secret}` }, body: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]) as BodyInit });
    expect(json.status).toBe(400);
    expect(await app.prisma.span.count({ where: { workspaceId, spanId: "aaaaaaaaaaaaaaa4" } })).toBe(0);
  });

  it("MCP: a name with an override is refused as isError naming the field", async () => {
    const mcp = new Client({ name: "oodle-test", version: "1.0.0" });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${secret}` } } }));
    try {
      const created = (await mcp.callTool({ name: "manage_genai_evaluators", arguments: { action: "create_template", name: `Keywords${RLO}`, starterId: "keyword-check" } })) as { isError?: boolean; content: { text?: string }[] };
      expect(created.isError).toBe(true);
      expect(created.content.map((c) => c.text).join("\n")).toContain("name: must not contain the bidirectional control U+202E (character 9)");
      const blank = (await mcp.callTool({ name: "manage_genai_evaluators", arguments: { action: "get_evaluator", name: "   " } })) as { isError?: boolean; content: { text?: string }[] };
      expect(blank.isError).toBe(true);
      expect(blank.content.map((c) => c.text).join("\n")).toContain("must not be empty");
      expect(blank.content.map((c) => c.text).join("\n")).not.toContain("NOT_FOUND");
    } finally {
      await mcp.close();
    }
  });

  it("CLI: a file that is not UTF-8 is refused naming its line; a blank name is refused as empty", async () => {
    const dir = mkdtempSync(join(tmpdir(), "oodle-rules-"));
    const file = join(dir, "spans.jsonl");
    writeFileSync(file, Buffer.concat([Buffer.from('{"traceId": "t", "spanId": "a", "name": "ok"}\n{"traceId": "t", "spanId": "b", "name": "caf'), Buffer.from([0xe9]), Buffer.from('"}\n')]));
    const oodle = (args: string[]) =>
      execa(process.execPath, [OODLE_BIN, ...args], { cwd: ROOT, reject: false, env: { OODLE_API_URL: server.url, OODLE_API_KEY: secret, OODLE_CONFIG_DIR: join(dir, "cli") }, stdin: "ignore" });
    const ingest = await oodle(["spans", "ingest", file]);
    expect(ingest.exitCode).toBe(2);
    expect(ingest.stderr).toContain(`is not valid UTF-8 at line 2 (byte 0xe9 at byte ${Buffer.from('{"traceId": "t", "spanId": "a", "name": "ok"}\n{"traceId": "t", "spanId": "b", "name": "caf').length + 1}): save it as UTF-8`);
    expect(await app.prisma.span.count({ where: { workspaceId, traceId: "t", spanId: { in: ["a", "b"] } } })).toBe(0);
    const show = await oodle(["genai", "evaluators", "get", "  "]);
    expect(show.exitCode).toBe(2);
    expect(show.stderr).toContain("name: must not be empty (it is only whitespace)");
  });
});
