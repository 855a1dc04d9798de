import type { Readable } from "node:stream";
import { utf8Problem } from "../../lib/utf8.js";

/** Lines longer than this many bytes are reported as bad, and not held in memory (as a span: 1 MiB). */
export const MAX_LINE_BYTES = 1024 * 1024;

/** One non-blank line of a JSON Lines stream: its parsed value, or why it is not JSON. */
export type JsonLine = { line: number; value: unknown; error?: undefined } | { line: number; value?: undefined; error: string };

const NEWLINE = 0x0a;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** A chunk of a byte stream as a Buffer (file streams give Buffers, uploads Uint8Arrays). */
function bytesOf(chunk: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return Buffer.from(String(chunk), "utf8");
}

/**
 * Reads a JSON Lines stream one line at a time, on bytes (so a large file never sits in memory,
 * and a line past {@link MAX_LINE_BYTES} is skipped as it streams, never buffered), and yields
 * each non-blank line's value with its 1-based line number. A line that is not valid UTF-8 (said
 * with the byte offset of the first bad sequence: it is never decoded to U+FFFD), longer than
 * {@link MAX_LINE_BYTES} or not JSON is yielded with an error instead. A UTF-8 byte order mark at
 * the start is ignored; CRLF line ends are accepted. The values are as JSON.parse returns them:
 * the caller checks what JSON allows and storage does not (U+0000, lone surrogates, depth).
 */
export async function* readJsonLines(stream: Readable): AsyncGenerator<JsonLine> {
  let parts: Buffer[] = [];
  let size = 0;
  let tooLong = false;
  let number = 0;
  const finish = (): JsonLine | null => {
    number += 1;
    const long = tooLong;
    let bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts, size);
    [parts, size, tooLong] = [[], 0, false];
    if (long) return { line: number, error: `the line is longer than ${MAX_LINE_BYTES} bytes` };
    if (number === 1 && bytes.subarray(0, 3).equals(BOM)) bytes = bytes.subarray(3);
    if (bytes.length > 0 && bytes[bytes.length - 1] === 0x0d) bytes = bytes.subarray(0, -1);
    const bad = utf8Problem(bytes);
    if (bad) return { line: number, error: bad };
    const text = bytes.toString("utf8");
    if (text.trim() === "") return null;
    try {
      return { line: number, value: JSON.parse(text) };
    } catch (error) {
      return { line: number, error: `not valid JSON: ${(error as Error).message}` };
    }
  };
  const append = (piece: Buffer) => {
    if (tooLong || piece.length === 0) return;
    if (size + piece.length > MAX_LINE_BYTES) {
      [parts, size, tooLong] = [[], 0, true];
      return;
    }
    parts.push(piece);
    size += piece.length;
  };
  for await (const chunk of stream) {
    const bytes = bytesOf(chunk);
    let start = 0;
    for (let end = bytes.indexOf(NEWLINE, start); end !== -1; end = bytes.indexOf(NEWLINE, start)) {
      append(bytes.subarray(start, end));
      const line = finish();
      if (line) yield line;
      start = end + 1;
    }
    append(bytes.subarray(start));
  }
  if (size > 0 || tooLong) {
    const line = finish();
    if (line) yield line;
  }
}
