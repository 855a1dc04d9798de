// template.yaml as the CLI reads it (src/cli/template-yaml.ts) on the same files as python -m oodle_eval run's
// reader (python-lib/tests/test_template_yaml.py): both read the same data, or both refuse at the same line.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CliError } from "../../src/cli/exit-codes.js";
import { readFolder } from "../../src/cli/template-folder.js";
import { readTemplateYaml, TemplateYamlError, writeTemplateYaml } from "../../src/cli/template-yaml.js";

type Case = { name: string; yaml: string; data?: unknown; line?: number };
const CASES: Case[] = JSON.parse(readFileSync(join(import.meta.dirname, "../fixtures/template-yaml-cases.json"), "utf8")).cases;

describe("template.yaml, read by the CLI as by python -m oodle_eval run", () => {
  it.each(CASES.filter((c) => "data" in c).map((c) => [c.name, c] as const))("reads %s", (_name, c) => {
    // Compared as the JSON a save sends (where JavaScript's -0 is 0, as in Python).
    expect(JSON.parse(JSON.stringify(readTemplateYaml(c.yaml)))).toEqual(c.data);
  });

  it.each(CASES.filter((c) => "line" in c).map((c) => [c.name, c] as const))("refuses %s at its line", (_name, c) => {
    let error: unknown;
    try {
      readTemplateYaml(c.yaml);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TemplateYamlError);
    expect((error as TemplateYamlError).line).toBe(c.line);
    expect((error as Error).message).toMatch(new RegExp(`^line ${c.line}: `));
  });

  it("reads back what it writes, and the folder names the file and the line of a bad one", () => {
    const manifest = { name: "T", description: 'two\nlines "quoted" # not a comment', settings: [{ name: "words", type: "string_list", default: ["yes", "1.0", "null", "- dash", "a: b", "é😀"] }], libraryPins: { acme: 2 } };
    expect(readTemplateYaml(writeTemplateYaml(manifest))).toEqual(manifest);
    const dir = mkdtempSync(join(tmpdir(), "template-yaml-"));
    writeFileSync(join(dir, "evaluate.py"), "def evaluate(ctx):\n    return EvaluationResult(scores=[])\n");
    writeFileSync(join(dir, "template.yaml"), 'name: "T"\nsettings:\n  - name: "a"\n    default: !!timestamp 2001-12-14\n');
    let error: unknown;
    try {
      readFolder(dir);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CliError);
    expect((error as Error).message).toBe("template.yaml is not valid YAML: line 4: Unresolved tag: !!timestamp");
  });
});
