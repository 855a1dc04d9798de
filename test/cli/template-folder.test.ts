import { describe, expect, it } from "vitest";
import { judgeFileOf, judgeVersionHash, pathInFolder } from "../../src/cli/template-folder.js";
import { readTemplateYaml, writeJudgeYaml } from "../../src/cli/template-yaml.js";

describe("pathInFolder", () => {
  const settings = [{ name: "required", type: "string_list" }, { name: "mode", type: "enum" }, { type: "number" }, { name: "Not a name!", type: "number" }];

  it("names a setting of template.yaml by its name, not its position", () => {
    expect(pathInFolder("params[0].default", settings)).toBe("template.yaml settings.required.default");
    expect(pathInFolder("params[1].options[2]", settings)).toBe("template.yaml settings.mode.options[2]");
    expect(pathInFolder("params[1]", settings)).toBe("template.yaml settings.mode");
  });

  it("keeps the position of a setting without a usable name, and maps the other fields to their files", () => {
    expect(pathInFolder("params[2].name", settings)).toBe("template.yaml settings[2].name");
    expect(pathInFolder("params[3].name", settings)).toBe("template.yaml settings[3].name");
    expect(pathInFolder("params[9].default", settings)).toBe("template.yaml settings[9].default");
    expect(pathInFolder("params", settings)).toBe("template.yaml settings");
    expect(pathInFolder("sourceCode", settings)).toBe("evaluate.py");
    expect(pathInFolder("libraryPins.acme_policy", settings)).toBe("template.yaml libraryPins.acme_policy");
  });
});

describe("llm template folders (judge.yaml)", () => {
  it("maps a judge's API fields to judge.yaml", () => {
    expect(pathInFolder("judge.messages[1].content")).toBe("judge.yaml messages[1].content");
    expect(pathInFolder("judge.output[0].higherIsBetter")).toBe("judge.yaml output[0].higherIsBetter");
    expect(pathInFolder("judge")).toBe("judge.yaml");
  });

  it("writes a stored judge in reading order, and hashes the same data alike whatever its key order", () => {
    const stored = { output: [{ type: "numeric", max: 5, higherIsBetter: true, min: 1, name: "warmth" }], cacheTtlSeconds: 60, messages: [{ content: "Grade {{output}}", role: "user" }], maxOutputTokens: 256 };
    const file = judgeFileOf(stored);
    expect(Object.keys(file)).toEqual(["messages", "output", "maxOutputTokens", "cacheTtlSeconds"]);
    expect(Object.keys(file.messages[0]!)).toEqual(["role", "content"]);
    expect(Object.keys(file.output[0]!)).toEqual(["name", "type", "min", "max", "higherIsBetter"]);
    expect(judgeVersionHash(stored, [])).toBe(judgeVersionHash(file, []));
    expect(judgeVersionHash(stored, [])).not.toBe(judgeVersionHash({ ...stored, maxOutputTokens: 257 }, []));
  });

  it("writes multi-line content as a literal block that reads back exactly, and falls back to JSON strings when a block cannot hold it", () => {
    const contents = ["Is this polite?\nReply:\n{{output}}", "  indented first line\nnext", "ends with newlines\n\n", "trailing spaces   \nnext", "# not a comment\n- not a list\nkey: value", "yes", "010", "\nstarts with a newline"];
    for (const content of contents) {
      const judge = { messages: [{ role: "user", content }], output: [{ name: "ok", type: "boolean", higherIsBetter: true }] };
      expect(readTemplateYaml(writeJudgeYaml(judge))).toEqual(judge);
    }
    expect(writeJudgeYaml({ messages: [{ role: "user", content: "a\nb" }] })).toBe('messages:\n  - role: "user"\n    content: |-\n      a\n      b\n');
    // A control character cannot be in a block: every string is then a JSON string.
    const bell = { messages: [{ role: "user", content: "ring\u0007\nnow" }] };
    expect(writeJudgeYaml(bell)).toBe('messages:\n  - role: "user"\n    content: "ring\\u0007\\nnow"\n');
    expect(readTemplateYaml(writeJudgeYaml(bell))).toEqual(bell);
  });
});
