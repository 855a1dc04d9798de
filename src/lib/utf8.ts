/**
 * Strict UTF-8: text that arrives as bytes (imported files, GraphQL and OTLP/JSON request
 * bodies, OTLP/protobuf strings) is refused when it is not valid UTF-8, instead of being decoded
 * with U+FFFD in place of the bad bytes (which stores something the client never sent).
 */

const strict = new TextDecoder("utf-8", { fatal: true });

/** The UTF-8 encoding of U+FFFD (a replacement character the client did send). */
const REPLACEMENT = [0xef, 0xbf, 0xbd] as const;

/**
 * The 0-based byte offset of the first invalid UTF-8 sequence in `bytes`, or -1 when they are
 * valid UTF-8 (overlong forms, surrogates and code points past U+10FFFF are invalid, as in the
 * WHATWG decoder that checks them).
 */
export function invalidUtf8Offset(bytes: Uint8Array): number {
  try {
    strict.decode(bytes);
    return -1;
  } catch {
    // Where: the lenient decoding puts U+FFFD at the first bad sequence; a U+FFFD that was sent as
    // its own three bytes is not one.
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
    let offset = 0;
    for (const char of text) {
      if (char === "\uFFFD" && !(bytes[offset] === REPLACEMENT[0] && bytes[offset + 1] === REPLACEMENT[1] && bytes[offset + 2] === REPLACEMENT[2])) return offset;
      offset += Buffer.byteLength(char, "utf8");
    }
    return 0;
  }
}

/** "is not valid UTF-8 (byte 0xff at byte 12)" for invalid bytes, else null. */
export function utf8Problem(bytes: Uint8Array): string | null {
  const offset = invalidUtf8Offset(bytes);
  if (offset < 0) return null;
  const byte = bytes[offset];
  return `is not valid UTF-8 (byte 0x${(byte ?? 0).toString(16).padStart(2, "0")} at byte ${offset + 1}): save the file as UTF-8`;
}

/**
 * Decodes UTF-8 strictly. @returns the text.
 * @throws TypeError naming the byte offset of the first invalid sequence.
 */
export function decodeUtf8Strict(bytes: Uint8Array): string {
  try {
    return strict.decode(bytes);
  } catch {
    throw new TypeError(`not valid UTF-8 (first bad byte at offset ${invalidUtf8Offset(bytes)})`);
  }
}
