/**
 * Frames of the runner protocol: a 4-byte big-endian length, then that many bytes of UTF-8 JSON.
 * See sandbox/runner.py for the conversation (sandbox/runner_protocol.py: its side of the framing).
 */

/** Encodes one message as a frame. */
export function encodeFrame(message: unknown): Buffer {
  const json = JSON.stringify(message);
  const frame = Buffer.allocUnsafe(4 + Buffer.byteLength(json, "utf8"));
  frame.writeUInt32BE(frame.length - 4, 0);
  frame.write(json, 4, "utf8");
  return frame;
}

const EMPTY = Buffer.alloc(0);

/** Thrown by {@link FrameDecoder} on a frame that is too large or not JSON. */
export class FrameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FrameError";
  }
}

/** Incremental decoder: push chunks, get whole parsed messages. */
export class FrameDecoder {
  private buffer: Buffer = EMPTY;

  /** @param maxFrameBytes - a frame announcing more bytes than this is a {@link FrameError}. */
  constructor(private readonly maxFrameBytes: number) {}

  /**
   * Adds bytes and returns every message completed by them.
   * @throws FrameError when a frame is too large or its body is not JSON.
   */
  push(chunk: Buffer): unknown[] {
    const buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const messages: unknown[] = [];
    let offset = 0;
    while (buffer.length - offset >= 4) {
      const size = buffer.readUInt32BE(offset);
      if (size > this.maxFrameBytes) throw new FrameError(`frame of ${size} bytes exceeds ${this.maxFrameBytes}`);
      if (buffer.length - offset < 4 + size) break;
      const body = buffer.toString("utf8", offset + 4, offset + 4 + size);
      offset += 4 + size;
      try {
        messages.push(JSON.parse(body));
      } catch {
        throw new FrameError("frame is not JSON");
      }
    }
    this.buffer = offset === buffer.length ? EMPTY : buffer.subarray(offset);
    return messages;
  }
}
