/**
 * Output kept up to a cap: {@link Capped} (bytes of a stream) and {@link capOutput} (an item's
 * stdout and stderr, which share one cap).
 */

/** Bytes kept from a stream, up to a cap. */
export class Capped {
  private chunks: Buffer[] = [];
  size = 0;
  exceeded = false;
  constructor(private readonly cap: number) {}
  push(chunk: Buffer): void {
    const room = this.cap - this.size;
    if (chunk.length > room) this.exceeded = true;
    const keep = chunk.length > room ? chunk.subarray(0, Math.max(room, 0)) : chunk;
    if (keep.length > 0) {
      this.chunks.push(keep);
      this.size += keep.length;
    }
  }
  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}

/**
 * An item's stdout and stderr cut to `outputBytes` (UTF-8 bytes) together, stdout first.
 * @returns the kept texts and `overflow`: true when anything was cut.
 */
export function capOutput(stdout: string, stderr: string, outputBytes: number): { stdout: string; stderr: string; overflow: boolean } {
  // A UTF-16 code unit is at most 3 bytes of UTF-8: text this short cannot pass the cap.
  if (stdout.length + stderr.length <= outputBytes / 4) return { stdout, stderr, overflow: false };
  const out = new Capped(outputBytes);
  out.push(Buffer.from(stdout, "utf8"));
  const err = new Capped(Math.max(outputBytes - out.size, 0));
  err.push(Buffer.from(stderr, "utf8"));
  return { stdout: out.text(), stderr: err.text(), overflow: out.exceeded || err.exceeded };
}
