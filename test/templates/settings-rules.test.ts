// One test per rule of docs/settings.md (§ Declaring a setting, § Types),
// through the GraphQL API: the error code, the issue path and the message.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SOURCE, issuesOf, templatesHarness } from "./helpers.js";

const h = templatesHarness();
afterAll(() => h.app.close());
let ws: Awaited<ReturnType<typeof h.workspace>>;
beforeAll(async () => {
  ws = await h.workspace("settings-rules");
});

let counter = 0;
/** Saves a template with these settings; returns its error (if any). */
async function save(params: unknown) {
  counter += 1;
  return ws.createTemplate({ name: `rules ${counter}`, sourceCode: SOURCE, params });
}

/** Asserts a BAD_USER_INPUT whose issues are exactly these. */
async function refused(params: unknown, issues: { path: string; message: string | RegExp }[]) {
  const { error, template } = await save(params);
  expect(template).toBeUndefined();
  expect(error?.extensions?.code).toBe("BAD_USER_INPUT");
  const got = issuesOf(error);
  expect(got).toHaveLength(issues.length);
  issues.forEach((want, i) => {
    expect(got[i]!.path).toBe(want.path);
    if (typeof want.message === "string") expect(got[i]!.message).toBe(want.message);
    else expect(got[i]!.message).toMatch(want.message);
  });
  return error!;
}

async function accepted(params: unknown) {
  const { error, template } = await save(params);
  expect(error).toBeUndefined();
  return template;
}

describe("settings: name", () => {
  it("is required", async () => {
    await refused([{ type: "string" }], [{ path: "params[0].name", message: "is required" }]);
  });

  it("is a lower-case Python name: letters, digits and _, not starting with a digit", async () => {
    const rule = "must be a lower-case Python name: letters a-z, digits and _, not starting with a digit";
    await refused([{ name: "Mode", type: "string" }], [{ path: "params[0].name", message: rule }]);
    await refused([{ name: "max-words", type: "string" }], [{ path: "params[0].name", message: rule }]);
    await refused([{ name: "1st", type: "string" }], [{ path: "params[0].name", message: rule }]);
    await refused([{ name: "", type: "string" }], [{ path: "params[0].name", message: rule }]);
    await refused([{ name: "naïve", type: "string" }], [{ path: "params[0].name", message: rule }]);
    await accepted([{ name: "_private", type: "string" }, { name: "max_words2", type: "integer" }]);
  });

  it("is at most 64 characters", async () => {
    await accepted([{ name: "a".repeat(64), type: "string" }]);
    await refused([{ name: "a".repeat(65), type: "string" }], [{ path: "params[0].name", message: "must be at most 64 characters" }]);
  });

  it("is not a Python keyword (keyword.kwlist of Python 3.11); soft keywords are allowed", async () => {
    await refused([{ name: "class", type: "string" }], [{ path: "params[0].name", message: '"class" is a Python keyword and cannot be a setting name' }]);
    await refused([{ name: "lambda", type: "string" }], [{ path: "params[0].name", message: '"lambda" is a Python keyword and cannot be a setting name' }]);
    await accepted([{ name: "match", type: "string" }, { name: "case", type: "string" }]);
  });

  it("appears only once", async () => {
    await refused(
      [{ name: "mode", type: "string" }, { name: "other", type: "string" }, { name: "mode", type: "integer" }],
      [{ path: "params[2].name", message: 'each name only once: "mode" is also params[0]' }],
    );
  });
});

describe("settings: type", () => {
  it("is required", async () => {
    await refused([{ name: "x" }], [{ path: "params[0].type", message: "is required" }]);
  });

  it("is one of string, text, number, integer, boolean, string_list, enum, json", async () => {
    await refused([{ name: "x", type: "float" }], [{ path: "params[0].type", message: "must be one of string, text, number, integer, boolean, string_list, enum, json" }]);
    const all = ["string", "text", "number", "integer", "boolean", "string_list", "json"].map((type, i) => ({ name: `s${i}`, type }));
    await accepted([...all, { name: "e", type: "enum", options: ["a"] }]);
  });
});

describe("settings: options", () => {
  it("are required for enum", async () => {
    await refused([{ name: "mode", type: "enum" }], [{ path: "params[0].options", message: "is required for an enum setting" }]);
  });

  it("are a non-empty list of strings", async () => {
    await refused([{ name: "mode", type: "enum", options: [] }], [{ path: "params[0].options", message: "must be a non-empty list of strings" }]);
    await refused([{ name: "mode", type: "enum", options: "all" }], [{ path: "params[0].options", message: "must be a non-empty list of strings" }]);
    await refused([{ name: "mode", type: "enum", options: ["all", 2] }], [{ path: "params[0].options[1]", message: "must be a non-empty string of at most 100 characters" }]);
  });

  it("are distinct", async () => {
    await refused(
      [{ name: "mode", type: "enum", options: ["all", "any", "all"] }],
      [{ path: "params[0].options[2]", message: 'options must be distinct: "all" appears more than once' }],
    );
  });

  it("are refused on other types", async () => {
    await refused([{ name: "x", type: "string", options: ["a"] }], [{ path: "params[0].options", message: "only enum settings take options" }]);
  });
});

describe("settings: default has the setting's type", () => {
  const cases: [type: string, bad: unknown, message: string, good: unknown][] = [
    ["string", 3, "must be a string (the setting's type is string)", "x"],
    ["text", ["a"], "must be a string (the setting's type is text)", "line 1\nline 2"],
    ["number", "0.5", "must be a finite number (the setting's type is number)", 0.5],
    ["integer", 1.5, "must be a whole number (an integer between -(2^53-1) and 2^53-1) (the setting's type is integer)", 250],
    ["boolean", "false", "must be true or false (the setting's type is boolean)", false],
    ["string_list", ["a", 1], "must be a list of strings (the setting's type is string_list)", ["a, with comma", "b"]],
    ["string_list", "a,b", "must be a list of strings (the setting's type is string_list)", []],
  ];
  for (const [type, bad, message, good] of cases) {
    it(`${type}: refuses ${JSON.stringify(bad)}, accepts ${JSON.stringify(good)}`, async () => {
      await refused([{ name: "x", type, default: bad }], [{ path: "params[0].default", message }]);
      const template = await accepted([{ name: "x", type, default: good }]);
      expect(template.latestVersion.params[0].default).toEqual(good);
    });
  }

  it("integer: a whole number written as 2.0 in JSON is accepted", async () => {
    await accepted([{ name: "x", type: "integer", default: 2.0 }]);
  });

  it("enum: the default is one of the options", async () => {
    await refused(
      [{ name: "mode", type: "enum", options: ["all", "any"], default: "some" }],
      [{ path: "params[0].default", message: 'must be one of the options: "all", "any" (the setting\'s type is enum)' }],
    );
    await accepted([{ name: "mode", type: "enum", options: ["all", "any"], default: "any" }]);
  });

  it("json: any JSON value", async () => {
    for (const value of [{ a: [1, 2] }, [1, "a"], 3.5, "text", true]) await accepted([{ name: "x", type: "json", default: value }]);
  });

  it("null means no default", async () => {
    const template = await accepted([{ name: "x", type: "string", default: null }]);
    expect(template.latestVersion.params[0]).toMatchObject({ default: null, hasDefault: false });
  });
});

describe("settings: other fields", () => {
  it("required is a boolean", async () => {
    await refused([{ name: "x", type: "string", required: "yes" }], [{ path: "params[0].required", message: "must be true or false" }]);
  });

  it("label and description are bounded strings", async () => {
    await refused([{ name: "x", type: "string", label: "l".repeat(101) }], [{ path: "params[0].label", message: "must be a string of at most 100 characters" }]);
    await refused([{ name: "x", type: "string", description: "d".repeat(1001) }], [{ path: "params[0].description", message: "must be a string of at most 1000 characters" }]);
    await refused([{ name: "x", type: "string", label: 5 }], [{ path: "params[0].label", message: "must be a string of at most 100 characters" }]);
  });

  it("unknown fields are refused", async () => {
    await refused([{ name: "x", type: "string", defualt: "a" }], [{ path: "params[0].defualt", message: /^unknown field: a setting has name, type/ }]);
  });

  it("params is a list of objects", async () => {
    await refused({ name: "x" }, [{ path: "params", message: "must be a list of settings" }]);
    await refused(["x"], [{ path: "params[0]", message: "must be an object with at least name and type" }]);
  });
});

describe("settings: count", () => {
  it("at most 32 settings", async () => {
    const make = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `s${i}`, type: "string" }));
    await accepted(make(32));
    await refused(make(33), [{ path: "params", message: "a template can declare at most 32 settings (got 33)" }]);
  });
});

describe("settings: every violation at once", () => {
  it("reports each issue with its path in one BAD_USER_INPUT", async () => {
    const error = await refused(
      [
        { name: "required", type: "string_list", default: [] },
        { name: "Bad", type: "enum", options: [] },
        { name: "mode", type: "enum", options: ["all", "any"], default: "some", required: "no" },
        { name: "required", type: "float" },
      ],
      [
        { path: "params[1].name", message: /lower-case Python name/ },
        { path: "params[1].options", message: "must be a non-empty list of strings" },
        { path: "params[2].required", message: "must be true or false" },
        { path: "params[2].default", message: /must be one of the options/ },
        { path: "params[3].type", message: /must be one of string/ },
        { path: "params[3].name", message: 'each name only once: "required" is also params[0]' },
      ],
    );
    expect(error.message).toContain("params[2].default: must be one of the options");
  });

  it("reports settings, name and code issues together", async () => {
    const { error } = await ws.createTemplate({ name: " ", sourceCode: "def evaluate(ctx:\n", params: [{ name: "x", type: "nope" }] });
    expect(error?.extensions?.code).toBe("BAD_USER_INPUT");
    expect(issuesOf(error).map((i) => i.path)).toEqual(["name", "params[0].type", "sourceCode"]);
  });
});
