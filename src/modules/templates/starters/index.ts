import { readFileSync } from "node:fs";
import { NotFoundError } from "../../../lib/errors.js";
import type { ParamSpec } from "../settings.js";
import type { TemplateKind } from "../../../lib/closed-lists.js";
import { STARTERS, type StarterManifestEntry } from "./manifest.js";

/** A built-in template with its code (or, an llm starter, its judge). */
export interface Starter extends StarterManifestEntry {
  /** The kind of template it makes: code, or llm (a judge). */
  kind: TemplateKind;
  /** The code of `<id>.py`; empty for an llm starter. */
  sourceCode: string;
}

/** Every starter, code loaded once from the files beside the manifest. */
const LOADED: readonly Starter[] = STARTERS.map((entry) => ({
  ...entry,
  kind: entry.judge ? "llm" : "code",
  sourceCode: entry.judge ? "" : readFileSync(new URL(`./${entry.id}.py`, import.meta.url), "utf8"),
}));

/** The built-in templates, in listing order. */
export function listStarters(): readonly Starter[] {
  return LOADED;
}

/** NOT_FOUND for an unknown starter id, listing the valid ones. */
export function starterNotFound(id: string): NotFoundError {
  return new NotFoundError("starter", id, `the starters are ${listStarters().map((s) => s.id).join(", ")}`);
}

/** One starter by id, or null. */
export function findStarter(id: string): Starter | null {
  return LOADED.find((s) => s.id === id) ?? null;
}

/** A JSON value as a Python literal (`False`, `None`, `["a"]`), as ctx.params shows it. */
export function pythonLiteral(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (Array.isArray(value)) return `[${value.map(pythonLiteral).join(", ")}]`;
  if (typeof value === "object") {
    return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${pythonLiteral(v)}`).join(", ")}}`;
  }
  return JSON.stringify(value);
}

/** One comment line describing a setting: its type, whether it is required, its default. */
function settingLine(spec: ParamSpec): string {
  const type = spec.type === "enum" ? `enum of ${spec.options!.map((o) => JSON.stringify(o)).join(" | ")}` : spec.type;
  const parts = [type];
  if (spec.required) parts.push("required");
  parts.push(spec.default === undefined ? "no default (None)" : `default ${pythonLiteral(spec.default)}`);
  const help = spec.description ?? spec.label;
  return `#   ${spec.name} (${parts.join(", ")})${help ? `: ${help}` : ""}`;
}

/**
 * The starter as one template file: a header comment naming it and listing each setting's type
 * and default, then its code (what `oodle genai templates starters <id>` prints).
 */
export function starterFile(starter: Starter): string {
  const header = [`# ${starter.name} (starter "${starter.id}")`, `# ${starter.description}`, "#"];
  if (starter.params.length === 0) header.push("# Settings: none.");
  else {
    header.push("# Settings, read from ctx.params (the evaluator's value, else the default, else None):");
    header.push(...starter.params.map(settingLine));
  }
  if (starter.judge) return `${header.join("\n")}\n# A judge (kind llm, docs/judges.md): its messages and output definition.\n\n${JSON.stringify(starter.judge, null, 2)}\n`;
  return `${header.join("\n")}\n\n${starter.sourceCode}`;
}
