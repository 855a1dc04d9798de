import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/api-client/http.js";
import { reportError, type Output } from "../../src/cli/output.js";
import { toolError } from "../../src/mcp/results.js";

/** An Output that keeps what is written. */
function captured(json: boolean): Output & { errors: string[] } {
  const errors: string[] = [];
  return { json, tty: false, out: () => undefined, err: (text: string) => void errors.push(text), errors };
}

describe("a refusal that says when to retry (HTTP 429)", () => {
  const refusal = new ApiError("LIMIT_EXCEEDED", "tryCode: 1 call(s) already run for this workspace", [], [], 429, 7);

  it("the CLI exits 8 and says the wait, as text and as JSON", () => {
    const text = captured(false);
    expect(reportError(text, refusal)).toBe(8);
    expect(text.errors.join("\n")).toContain("retry in 7 s");
    const json = captured(true);
    expect(reportError(json, refusal)).toBe(8);
    expect(JSON.parse(json.errors[0]!).error).toMatchObject({ code: "LIMIT_EXCEEDED", retryAfterSeconds: 7 });
  });

  it("a limit refusal without a retry time stays bad input (exit 2), with no retryAfterSeconds", () => {
    const json = captured(true);
    expect(reportError(json, new ApiError("LIMIT_EXCEEDED", "the read costs 30,000 points, over 20,000", [], [], 400))).toBe(2);
    expect(JSON.parse(json.errors[0]!).error.retryAfterSeconds).toBeUndefined();
  });

  it("MCP's tool error carries retryAfterSeconds in its text and structured content", () => {
    const result = toolError(refusal);
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toContain("retryAfterSeconds: 7");
    expect((result.structuredContent as { error: { retryAfterSeconds: number } }).error.retryAfterSeconds).toBe(7);
  });
});
