// ctx.params resolution (docs/settings.md § What the code gets): the evaluator's
// value, else the setting's default, else None — for every declared setting.
import { describe, expect, it } from "vitest";
import type { ParamSpec } from "../../src/modules/templates/settings.js";
import { resolveParams, valueProblems } from "../../src/modules/templates/values.js";

const specs: ParamSpec[] = [
  { name: "required", type: "string_list", default: [], required: false },
  { name: "mode", type: "enum", options: ["all", "any"], default: "all", required: false },
  { name: "threshold", type: "number", required: false },
  { name: "config", type: "json", default: { a: [1] }, required: false },
];

describe("resolveParams", () => {
  it("takes the evaluator's value when it sets one", () => {
    expect(resolveParams(specs, { required: ["refund"], mode: "any", threshold: 0.7, config: 3 })).toEqual({
      required: ["refund"],
      mode: "any",
      threshold: 0.7,
      config: 3,
    });
  });

  it("else the setting's default, else null, for every declared setting", () => {
    expect(resolveParams(specs, {})).toEqual({ required: [], mode: "all", threshold: null, config: { a: [1] } });
    expect(resolveParams(specs)).toEqual({ required: [], mode: "all", threshold: null, config: { a: [1] } });
  });

  it("a null or undefined value counts as not set", () => {
    expect(resolveParams(specs, { mode: null, threshold: undefined })).toMatchObject({ mode: "all", threshold: null });
  });

  it("keeps falsy values that are set", () => {
    const flags: ParamSpec[] = [
      { name: "flag", type: "boolean", default: true, required: false },
      { name: "count", type: "integer", default: 5, required: false },
      { name: "text", type: "string", default: "x", required: false },
      { name: "list", type: "string_list", default: ["a"], required: false },
    ];
    expect(resolveParams(flags, { flag: false, count: 0, text: "", list: [] })).toEqual({ flag: false, count: 0, text: "", list: [] });
  });

  it("leaves out names the template does not declare", () => {
    expect(resolveParams(specs, { other: 1 })).not.toHaveProperty("other");
  });

  it("no settings give an empty object", () => {
    expect(resolveParams([], { a: 1 })).toEqual({});
  });

  it("is pure: the result shares nothing with its inputs", () => {
    const values = { required: ["refund"] };
    const resolved = resolveParams(specs, values);
    (resolved.required as string[]).push("x");
    (resolved.config as { a: number[] }).a.push(2);
    expect(values.required).toEqual(["refund"]);
    expect(specs[3]!.default).toEqual({ a: [1] });
    expect(resolveParams(specs, values)).toEqual(resolveParams(specs, values));
  });

  it("ignores inherited properties", () => {
    const values = Object.create({ mode: "any" }) as Record<string, unknown>;
    expect(resolveParams(specs, values).mode).toBe("all");
  });
});

describe("valueProblems", () => {
  it("names the setting for each kind of problem", () => {
    const required: ParamSpec[] = [...specs, { name: "at", type: "number", required: true }];
    expect(valueProblems(required, { mode: "some", nope: 1 })).toEqual([
      { name: "mode", kind: "type", message: 'setting "mode" (enum): the value must be one of the options: "all", "any"' },
      { name: "nope", kind: "undeclared", message: 'the template declares no setting "nope"' },
      { name: "at", kind: "missing", message: 'setting "at" is required and has no default: set a value' },
    ]);
  });
});
