// Code cites the product's reference as `docs/<file>.md § <Heading>` (docs/README.md): every such
// citation in the repository names a page of docs/ and starts with one of that page's headings, so
// a renamed heading fails here instead of leaving comments that point nowhere.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const SCANNED = ["src", "sandbox", "python-lib", "test", "scripts", "docker", "docs", "README.md"];
const TEXT = /\.(ts|mjs|cjs|js|py|sh|md|yaml|yml|json)$|Dockerfile$|Containerfile$/;
const SKIPPED = new Set(["node_modules", "generated", "__pycache__", ".pytest_cache", "data"]);
const CITATION = /docs\/([a-z][a-z-]*\.md)`? § ([^\n]+)/g;

function files(at: string): string[] {
  if (!statSync(path.join(ROOT, at)).isDirectory()) return TEXT.test(at) ? [at] : [];
  return readdirSync(path.join(ROOT, at)).flatMap((name) => (SKIPPED.has(name) ? [] : files(path.join(at, name))));
}

/** The headings of a docs page (`## X`, `### X`), by file name. */
function headingsOf(page: string): string[] | null {
  try {
    return readFileSync(path.join(ROOT, "docs", page), "utf8")
      .split("\n")
      .filter((line) => /^#{2,4} /.test(line))
      .map((line) => line.replace(/^#+ /, "").trim());
  } catch {
    return null;
  }
}

interface Citation {
  file: string;
  line: number;
  page: string;
  rest: string;
}

function citations(): Citation[] {
  const found: Citation[] = [];
  for (const file of SCANNED.flatMap(files)) {
    const lines = readFileSync(path.join(ROOT, file), "utf8").split("\n");
    lines.forEach((text, i) => {
      for (const match of text.matchAll(CITATION)) found.push({ file, line: i + 1, page: match[1]!, rest: match[2]! });
    });
  }
  return found;
}

describe("citations of docs/", () => {
  const all = citations();

  it("finds the citations (the scan works)", () => {
    expect(all.length).toBeGreaterThan(50);
    expect(all.some((c) => c.file.startsWith("src/") && c.page === "settings.md")).toBe(true);
  });

  it("each names a page of docs/ and starts with one of its headings", () => {
    const broken = all.filter((c) => {
      const headings = headingsOf(c.page);
      return headings === null || !headings.some((h) => c.rest.startsWith(h));
    });
    expect(broken.map((c) => `${c.file}:${c.line}: docs/${c.page} § ${c.rest}`)).toEqual([]);
  });
});
