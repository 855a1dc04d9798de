/**
 * Python's hard keywords: `keyword.kwlist` of CPython 3.11, the sandbox's interpreter
 * (https://docs.python.org/3.11/library/keyword.html; printed by `/usr/bin/python3.11 -c
 * "import keyword; print(keyword.kwlist)"`). A setting name that is one of them could not be a
 * keyword argument (`metrics.X(ctx, **ctx.params)`), so it is refused. The soft keywords
 * (`keyword.softkwlist`: `_`, `case`, `match`) are valid identifiers and stay allowed.
 */
export const PYTHON_KEYWORDS: readonly string[] = [
  "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
  "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in",
  "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
];

const KEYWORDS = new Set(PYTHON_KEYWORDS);

/** True when `name` is a Python 3.11 hard keyword. */
export function isPythonKeyword(name: string): boolean {
  return KEYWORDS.has(name);
}
