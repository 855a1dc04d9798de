import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/api-client/http.js";
import { flagOf, withFlagNames } from "../../src/cli/flag-names.js";

// The API's field paths in a CLI error are given as the command's flags (trial finding 9).
describe("flag names in CLI errors", () => {
  const evaluators = new Command("create").option("--span-kind <kind>").option("--sampling-rate <r>").option("--name <name>").option("--template <name>");
  const spans = new Command("list").option("--kind <kind>").option("--from <t>");
  const experiments = new Command("run").option("--evaluator <name>").option("--template <name>");
  const tryCmd = new Command("try").argument("[file]").option("--starter <id>").option("--template <name>").option("--span <file|id>");

  it("maps a field, an input or filter field, and an id or name field to its flag", () => {
    expect(flagOf(evaluators, "input.spanKind")).toBe("--span-kind");
    expect(flagOf(evaluators, "samplingRate")).toBe("--sampling-rate");
    expect(flagOf(evaluators, "templateName")).toBe("--template");
    expect(flagOf(spans, "filter.kind")).toBe("--kind");
    expect(flagOf(experiments, "evaluatorIds")).toBe("--evaluator");
    expect(flagOf(tryCmd, "sourceCode", { sourceCode: "FILE" })).toBe("FILE");
    expect(flagOf(tryCmd, "starterId")).toBe("--starter");
    // Deeper paths (a setting value, a document key) and fields no flag gives stay the API's.
    expect(flagOf(evaluators, "params.name")).toBeNull();
    expect(flagOf(tryCmd, "document.foo")).toBeNull();
    expect(flagOf(evaluators, "isolation")).toBeNull();
  });

  it("rewrites the issues and the message, keeping the API's path in apiPath", () => {
    const error = new ApiError("BAD_USER_INPUT", "input.spanKind: must be one of chat, tool", [{ path: "input.spanKind", message: "must be one of chat, tool" }, { path: "params.x", message: "is not a setting" }], [], 400);
    const named = withFlagNames(error, evaluators) as ApiError;
    expect(named.issues).toEqual([{ path: "--span-kind", apiPath: "input.spanKind", message: "must be one of chat, tool" }, { path: "params.x", message: "is not a setting" }]);
    expect(named.message).toBe("--span-kind: must be one of chat, tool; params.x: is not a setting");
    expect([named.code, named.status]).toEqual(["BAD_USER_INPUT", 400]);
    const other = new Error("boom");
    expect(withFlagNames(other, evaluators)).toBe(other);
  });
});
