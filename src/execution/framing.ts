/**
 * Frames of the runner protocol: a 4-byte big-endian length, then that many bytes of UTF-8 JSON.
 * See sandbox/runner.py for the conversation.
 */

/** Encodes one message as a frame. */
export function encodeFrame(message: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(message), "utf8");
  const header = Buffer.alloc(4);
  header.writeUInt32BE(body.length, 0);
  return Buffer.concat([header, body]);
}

/** Thrown by {@link FrameDecoder} on a frame that is too large or not JSON. */
export class FrameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FrameError";
  }
}

/** Incremental decoder: push chunks, get whole parsed messages. */
export class FrameDecoder {
  private buffer: Buffer = Buffer.alloc(0);

  /** @param maxFrameBytes - a frame announcing more bytes than this is a {@link FrameError}. */
  constructor(private readonly maxFrameBytes: number) {}

  /**
   * Adds bytes and returns every message completed by them.
   * @throws FrameError when a frame is too large or its body is not JSON.
   */
  push(chunk: Buffer): unknown[] {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const messages: unknown[] = [];
    while (this.buffer.length >= 4) {
      const size = this.buffer.readUInt32BE(0);
      if (size > this.maxFrameBytes) throw new FrameError(`frame of ${size} bytes exceeds ${this.maxFrameBytes}`);
      if (this.buffer.length < 4 + size) break;
      const body = this.buffer.subarray(4, 4 + size).toString("utf8");
      this.buffer = this.buffer.subarray(4 + size);
      try {
        messages.push(JSON.parse(body));
      } catch {
        throw new FrameError("frame is not JSON");
      }
    }
    return messages;
  }
}
