import { Readable } from "node:stream";

/** What an uploaded file offers: a WHATWG stream of its bytes (native or graphql-yoga's ponyfill). */
export interface StreamableFile {
  stream(): { getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }>; releaseLock(): void; cancel(reason?: unknown): Promise<void> } };
}

/**
 * A Node readable over an uploaded file's bytes, read chunk by chunk through the WHATWG reader
 * (works for the native stream and the ponyfill that graphql-yoga's multipart parser returns,
 * which `Readable.fromWeb` refuses). Destroying the readable cancels the upload's stream.
 */
export function fileToReadable(file: StreamableFile): Readable {
  const reader = file.stream().getReader();
  async function* chunks(): AsyncGenerator<Uint8Array> {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        if (value) yield value;
      }
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  }
  return Readable.from(chunks(), { objectMode: false });
}
