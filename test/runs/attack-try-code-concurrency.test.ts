// Attack test of issue 26, finding 4 (its second half): 4 sleeping tryCode calls of one workspace
// held the sandbox while another workspace waited. tryCode's concurrency per workspace is now a
// limit (TRY_CODE_CONCURRENCY_PER_WORKSPACE, default 1, at most 16) with a bounded wait
// (TRY_CODE_WAIT_MS); past it the call is refused with LIMIT_EXCEEDED, HTTP 429 and
// retryAfterSeconds, which the typed client carries to the CLI (exit 8, "retry in N s") and MCP
// (the tool error's text and structured content). The slot is held through the real Redis gate,
// as a running call of another API process holds it (no timing).
import { describe, expect, it, afterAll } from "vitest";
import { createApiClient, ApiError } from "../../src/api-client/http.js";
import { TryCodeDocument } from "../../src/api-client/generated/graphql.js";
import { EXIT } from "../../src/cli/exit-codes.js";
import { reportError } from "../../src/cli/output.js";
import { loadConfig } from "../../src/config.js";
import { createLogger } from "../../src/lib/logger.js";
import { toolError } from "../../src/mcp/results.js";
import { redisConcurrencyGate } from "../../src/modules/try-code/concurrency.js";
import { createTestApp, createTestWorkspace, graphqlClient } from "../helpers.js";

const app = createTestApp({ TRY_CODE_WAIT_MS: "0" });
afterAll(() => app.close());

describe("attack: one workspace holds tryCode's places (issue 26, finding 4)", () => {
  it("refuses a call over TRY_CODE_CONCURRENCY_PER_WORKSPACE with 429 and retryAfterSeconds in GraphQL, the CLI and MCP; another workspace runs", async () => {
    expect(app.config.TRY_CODE_CONCURRENCY_PER_WORKSPACE).toBe(1);
    const client = graphqlClient(app);
    const flooder = await createTestWorkspace(app, "try-flood");
    const gate = redisConcurrencyGate(app.redis, app.config.QUEUE_PREFIX, 1, createLogger("silent"));
    const held = await gate.enter(flooder.workspace.id); // a run in flight (another process's)
    expect(held).not.toBeNull();
    try {
      const input = { sourceCode: "def evaluate(ctx):\n    return EvaluationResult(scores=[Score(name='ok', value=True)])\n", document: { output: "hi" } };
      const res = await client.request(`mutation($input: TryCodeInput!) { tryCode(input: $input) { outcome } }`, { input }, flooder.secret);
      expect(res.status).toBe(429);
      expect(res.errors![0]!.extensions).toMatchObject({ code: "LIMIT_EXCEEDED", retryAfterSeconds: 1 });
      expect(res.errors![0]!.message).toBe("at most 1 tryCode run(s) at once per workspace (TRY_CODE_CONCURRENCY_PER_WORKSPACE); none finished within 0 ms; retry in 1 s");

      const api = createApiClient({ url: "http://localhost", key: flooder.secret, fetch: (request) => client.yoga.fetch(request) as Promise<Response> });
      const error = await api.request(TryCodeDocument, { input }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).retryAfterSeconds).toBe(1);
      const lines: string[] = [];
      const exit = reportError({ json: false, out: () => undefined, err: (t) => lines.push(t), tty: false }, error);
      expect(exit).toBe(EXIT.retryLater);
      expect(lines.join("\n")).toMatch(/^error \(LIMIT_EXCEEDED\): at most 1 tryCode run\(s\) at once per workspace .*retry in 1 s$/);
      const tool = toolError(error);
      expect(tool.isError).toBe(true);
      expect((tool.content[0] as { text: string }).text).toMatch(/^LIMIT_EXCEEDED: at most 1 tryCode run\(s\).* \(retryAfterSeconds: 1; retry the call after that\)$/);
      expect((tool.structuredContent as { error: { retryAfterSeconds: number } }).error.retryAfterSeconds).toBe(1);

      const other = await createTestWorkspace(app, "try-victim");
      const fine = await client.request(`mutation($input: TryCodeInput!) { tryCode(input: $input) { outcome } }`, { input }, other.secret);
      expect(fine.errors).toBeUndefined();
      expect(fine.data!.tryCode.outcome).toBe("ok");
    } finally {
      await held!();
    }
  });

  it("validates the limit's default and ceiling", () => {
    expect(() => loadConfig({ TRY_CODE_CONCURRENCY_PER_WORKSPACE: "17" })).toThrow("invalid configuration: TRY_CODE_CONCURRENCY_PER_WORKSPACE: must be at most 16");
    expect(() => loadConfig({ TRY_CODE_CONCURRENCY_PER_WORKSPACE: "0" })).toThrow("TRY_CODE_CONCURRENCY_PER_WORKSPACE: must be at least 1");
    expect(loadConfig({ TRY_CODE_CONCURRENCY_PER_WORKSPACE: "16" }).TRY_CODE_CONCURRENCY_PER_WORKSPACE).toBe(16);
  });
});
