import { isDeepStrictEqual } from "node:util";
import { Document, isCollection, parseDocument, stringify, visit, type Node } from "yaml";

/**
 * template.yaml's YAML, as this CLI writes it (`pull`) and reads it (`push`, `test`, `validate`),
 * and as `python -m oodle_eval run` reads it with PyYAML (python-lib/oodle_eval/template_yaml.py):
 * YAML 1.2 with the core schema (`yes` is a string, `010` is 10), one document, JSON data only.
 * The two readers are tested on the same files (test/fixtures/template-yaml-cases.json).
 */

/** A template.yaml that is not YAML, or not JSON data; `line` is 1-based (null when unknown). */
export class TemplateYamlError extends Error {
  constructor(
    readonly line: number | null,
    readonly reason: string,
  ) {
    super(line === null ? reason : `line ${line}: ${reason}`);
    this.name = "TemplateYamlError";
  }
}

/**
 * template.yaml's text: block mappings and lists, every string a JSON string on one line (never
 * folded, never a block scalar), no anchors. Any YAML parser reads it as the same data.
 */
export function writeTemplateYaml(manifest: unknown): string {
  return stringify(manifest, { defaultStringType: "QUOTE_DOUBLE", defaultKeyType: "PLAIN", doubleQuotedAsJSON: true, singleQuote: false, lineWidth: 0, aliasDuplicateObjects: false });
}

/**
 * judge.yaml's text (an llm template's folder): as {@link writeTemplateYaml}, except that a
 * multi-line string (a message's content) is a literal block (`|`), so a prompt reads and diffs as
 * the text it is. The result is read back with {@link readTemplateYaml} and must give the same data;
 * when a string cannot be a block exactly (a control character, say) the whole file is written as
 * writeTemplateYaml writes it, every string a JSON string.
 */
export function writeJudgeYaml(judge: unknown): string {
  const doc = new Document(judge, { aliasDuplicateObjects: false });
  visit(doc, {
    Scalar(key, node) {
      if (key === "key" || typeof node.value !== "string") return;
      node.type = node.value.includes("\n") ? "BLOCK_LITERAL" : "QUOTE_DOUBLE";
    },
  });
  const text = doc.toString({ defaultKeyType: "PLAIN", doubleQuotedAsJSON: true, lineWidth: 0, blockQuote: "literal" });
  try {
    if (isDeepStrictEqual(readTemplateYaml(text), judge)) return text;
  } catch {
    // Falls back below.
  }
  return writeTemplateYaml(judge);
}

// YAML 1.2's printable characters (§ 5.1 c-printable); npm yaml lets others through, PyYAML does not.
const NOT_PRINTABLE = /[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u;

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/**
 * Parses template.yaml text; an empty file is null. Refused, naming the line: YAML errors and
 * warnings (an unknown tag such as `!!timestamp` or `!foo`, which would otherwise become a string),
 * a key that appears twice, a list or mapping as a key, a number JSON cannot hold (`.inf`, `.nan`,
 * beyond ±1.8e308), a character YAML does not allow unescaped.
 * @throws TemplateYamlError
 */
export function readTemplateYaml(text: string): unknown {
  const bad = NOT_PRINTABLE.exec(text);
  if (bad) {
    const code = bad[0].codePointAt(0)!.toString(16).padStart(4, "0");
    throw new TemplateYamlError(lineAt(text, bad.index), `the character #x${code} is not allowed in YAML: write it escaped in a double-quoted string`);
  }
  const doc = parseDocument(text, { resolveKnownTags: false });
  const problem = doc.errors[0] ?? doc.warnings[0];
  if (problem) throw new TemplateYamlError(problem.linePos?.[0]?.line ?? null, problem.message.split("\n")[0]!.replace(/ at line \d+, column \d+:$/, "").replaceAll("tag:yaml.org,2002:", "!!"));
  let refusal: { node: Node; reason: string } | undefined;
  visit(doc, {
    Alias(_, alias) {
      if (alias.resolve(doc) === undefined) {
        refusal = { node: alias, reason: `the alias *${alias.source} names no anchor before it` };
        return visit.BREAK;
      }
      return undefined;
    },
    Pair(_, pair) {
      if (isCollection(pair.key)) {
        refusal = { node: pair.key, reason: "a key must be a string (or a number, true, false, null), not a list or mapping" };
        return visit.BREAK;
      }
      return undefined;
    },
    Scalar(_, scalar) {
      if (typeof scalar.value === "number" && !Number.isFinite(scalar.value)) {
        refusal = { node: scalar, reason: `${JSON.stringify(scalar.source ?? String(scalar.value))} is not a number JSON can hold (no .inf, .nan or numbers beyond ±1.8e308)` };
        return visit.BREAK;
      }
      return undefined;
    },
  });
  if (refusal) throw new TemplateYamlError(refusal.node.range ? lineAt(text, refusal.node.range[0]) : null, refusal.reason);
  return doc.toJS();
}
