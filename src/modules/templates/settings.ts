import type { InputIssue } from "../../lib/errors.js";
import { isPlainObject } from "../../lib/json-column.js";
import { isPythonKeyword } from "../../lib/python-keywords.js";


/** The setting types (docs/settings.md § Types). */
export const PARAM_TYPES = ["string", "text", "number", "integer", "boolean", "string_list", "enum", "json"] as const;

/** One setting type. */
export type ParamType = (typeof PARAM_TYPES)[number];

/** A setting of a template, as stored and returned (normalised: `required` always present). */
export interface ParamSpec {
  /** The key in ctx.params: a lower-case Python name. */
  name: string;
  type: ParamType;
  label?: string;
  description?: string;
  /** The value when an evaluator sets none; absent means no default (ctx.params gets None). */
  default?: unknown;
  required: boolean;
  /** The values of an enum setting (only for enum). */
  options?: string[];
}

/** At most this many settings per template. */
export const MAX_PARAMS = 32;
/** Longest setting name. */
export const MAX_PARAM_NAME = 64;
/** Longest label. */
export const MAX_LABEL = 100;
/** Longest description. */
export const MAX_DESCRIPTION = 1000;
/** Most options of an enum setting. */
export const MAX_OPTIONS = 100;
/** Longest enum option. */
export const MAX_OPTION = 100;

const FIELDS = ["name", "type", "label", "description", "default", "required", "options"];
const NAME_RE = /^[a-z_][a-z0-9_]*$/;


/**
 * Why `value` does not have the type of `spec`, or null when it does. The same rule serves a
 * setting's default and an evaluator's value: integer is a whole number, number is finite,
 * string_list is a list of strings, enum is one of the options, json is any JSON value.
 */
export function typeMismatch(spec: Pick<ParamSpec, "type" | "options">, value: unknown): string | null {
  switch (spec.type) {
    case "string":
    case "text":
      return typeof value === "string" ? null : "must be a string";
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? null : "must be a finite number";
    case "integer":
      return typeof value === "number" && Number.isSafeInteger(value)
        ? null
        : "must be a whole number (an integer between -(2^53-1) and 2^53-1)";
    case "boolean":
      return typeof value === "boolean" ? null : "must be true or false";
    case "string_list":
      return Array.isArray(value) && value.every((v) => typeof v === "string") ? null : "must be a list of strings";
    case "enum": {
      const options = spec.options ?? [];
      return typeof value === "string" && options.includes(value)
        ? null
        : `must be one of the options: ${options.map((o) => JSON.stringify(o)).join(", ")}`;
    }
    case "json":
      return null;
  }
}

function checkName(raw: unknown, at: string, issues: InputIssue[]): string | null {
  if (typeof raw !== "string") {
    issues.push({ path: at, message: raw === undefined || raw === null ? "is required" : "must be a string" });
    return null;
  }
  const before = issues.length;
  if (raw.length > MAX_PARAM_NAME) issues.push({ path: at, message: `must be at most ${MAX_PARAM_NAME} characters` });
  if (!NAME_RE.test(raw)) {
    issues.push({ path: at, message: "must be a lower-case Python name: letters a-z, digits and _, not starting with a digit" });
  } else if (isPythonKeyword(raw)) {
    issues.push({ path: at, message: `"${raw}" is a Python keyword and cannot be a setting name` });
  }
  return issues.length === before ? raw : null;
}

function checkOptions(raw: unknown, type: ParamType | null, at: string, issues: InputIssue[]): string[] | undefined {
  if (type !== "enum") {
    if (raw !== undefined && raw !== null && type !== null) issues.push({ path: at, message: "only enum settings take options" });
    return undefined;
  }
  if (!Array.isArray(raw) || raw.length === 0) {
    const missing = raw === undefined || raw === null;
    issues.push({ path: at, message: missing ? "is required for an enum setting" : "must be a non-empty list of strings" });
    return undefined;
  }
  const before = issues.length;
  if (raw.length > MAX_OPTIONS) issues.push({ path: at, message: `must have at most ${MAX_OPTIONS} options` });
  const seen = new Set<string>();
  raw.forEach((option, i) => {
    if (typeof option !== "string" || option.length === 0 || option.length > MAX_OPTION) {
      issues.push({ path: `${at}[${i}]`, message: `must be a non-empty string of at most ${MAX_OPTION} characters` });
    } else if (seen.has(option)) {
      issues.push({ path: `${at}[${i}]`, message: `options must be distinct: "${option}" appears more than once` });
    } else seen.add(option);
  });
  return issues.length === before ? (raw as string[]) : undefined;
}

function checkText(raw: unknown, max: number, at: string, issues: InputIssue[]): string | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== "string" || raw.length > max) {
    issues.push({ path: at, message: `must be a string of at most ${max} characters` });
    return undefined;
  }
  return raw;
}

function checkSpec(raw: unknown, at: string, issues: InputIssue[]): ParamSpec | null {
  if (!isPlainObject(raw)) {
    issues.push({ path: at, message: "must be an object with at least name and type" });
    return null;
  }
  const before = issues.length;
  for (const key of Object.keys(raw)) {
    if (!FIELDS.includes(key)) issues.push({ path: `${at}.${key}`, message: `unknown field: a setting has ${FIELDS.join(", ")}` });
  }
  const name = checkName(raw.name, `${at}.name`, issues);
  let type: ParamType | null = null;
  if (raw.type === undefined || raw.type === null) issues.push({ path: `${at}.type`, message: "is required" });
  else if (typeof raw.type !== "string" || !(PARAM_TYPES as readonly string[]).includes(raw.type)) {
    issues.push({ path: `${at}.type`, message: `must be one of ${PARAM_TYPES.join(", ")}` });
  } else type = raw.type as ParamType;
  const options = checkOptions(raw.options, type, `${at}.options`, issues);
  const label = checkText(raw.label, MAX_LABEL, `${at}.label`, issues);
  const description = checkText(raw.description, MAX_DESCRIPTION, `${at}.description`, issues);
  if (raw.required !== undefined && raw.required !== null && typeof raw.required !== "boolean") {
    issues.push({ path: `${at}.required`, message: "must be true or false" });
  }
  const hasDefault = raw.default !== undefined && raw.default !== null;
  if (hasDefault && type !== null && (type !== "enum" || options)) {
    const mismatch = typeMismatch({ type, options }, raw.default);
    if (mismatch) issues.push({ path: `${at}.default`, message: `${mismatch} (the setting's type is ${type})` });
  }
  if (issues.length !== before || name === null || type === null) return null;
  const spec: ParamSpec = { name, type, required: raw.required === true };
  if (label !== undefined) spec.label = label;
  if (description !== undefined) spec.description = description;
  if (hasDefault) spec.default = raw.default;
  if (options) spec.options = options;
  return spec;
}

/**
 * Checks a template's settings list against every rule of docs/settings.md § Declaring a setting and
 * returns the normalised specs, or every violation at once with paths like `params[3].default`.
 * A `default` of null counts as no default (ctx.params then gets None, the same value).
 * @param raw - the `params` input, any JSON.
 * @param field - the path prefix of the issues (`params`).
 */
export function validateParamSpecs(raw: unknown, field = "params"): { specs: ParamSpec[]; issues: InputIssue[] } {
  if (raw === undefined || raw === null) return { specs: [], issues: [] };
  if (!Array.isArray(raw)) return { specs: [], issues: [{ path: field, message: "must be a list of settings" }] };
  const issues: InputIssue[] = [];
  if (raw.length > MAX_PARAMS) issues.push({ path: field, message: `a template can declare at most ${MAX_PARAMS} settings (got ${raw.length})` });
  const specs: ParamSpec[] = [];
  const firstIndex = new Map<string, number>();
  raw.forEach((item, i) => {
    const spec = checkSpec(item, `${field}[${i}]`, issues);
    const name = isPlainObject(item) && typeof item.name === "string" ? item.name : null;
    if (name !== null) {
      const first = firstIndex.get(name);
      if (first !== undefined) {
        issues.push({ path: `${field}[${i}].name`, message: `each name only once: "${name}" is also ${field}[${first}]` });
      } else firstIndex.set(name, i);
    }
    if (spec) specs.push(spec);
  });
  return { specs, issues };
}
