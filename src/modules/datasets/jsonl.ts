import { createInterface } from "node:readline";
import type { Readable } from "node:stream";

/** Lines longer than this many characters are reported as bad instead of parsed. */
export const MAX_LINE_CHARS = 1_000_000;

/** One non-blank line of a JSON Lines stream: its parsed value, or why it is not JSON. */
export type JsonLine = { line: number; value: unknown; text: string; error?: undefined } | { line: number; value?: undefined; text?: undefined; error: string };

/**
 * Reads a JSON Lines stream one line at a time (readline over the stream, so a large file never
 * sits in memory) and yields each non-blank line's value with its 1-based line number. A line
 * that is not JSON, or longer than {@link MAX_LINE_CHARS}, is yielded with an error instead.
 * A UTF-8 byte order mark at the start is ignored; CRLF line ends are accepted.
 */
export async function* readJsonLines(stream: Readable): AsyncGenerator<JsonLine> {
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let number = 0;
  for await (const raw of lines) {
    number += 1;
    const text = number === 1 ? raw.replace(/^\uFEFF/, "") : raw;
    if (text.trim() === "") continue;
    if (text.length > MAX_LINE_CHARS) {
      yield { line: number, error: `the line is longer than ${MAX_LINE_CHARS} characters` };
      continue;
    }
    try {
      yield { line: number, value: JSON.parse(text), text };
    } catch (error) {
      yield { line: number, error: `not valid JSON: ${(error as Error).message}` };
    }
  }
}
