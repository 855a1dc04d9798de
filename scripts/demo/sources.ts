import { createReadStream, existsSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { Readable } from "node:stream";

/** The repository root. */
export const ROOT = path.resolve(import.meta.dirname, "../..");
/** ../shared/data next to the repository, when this machine has it. */
export const SHARED_DATA = path.resolve(ROOT, "../shared/data");
/** The small copies in the repository (data/demo), used when ../shared/data is absent. */
export const DEMO_DATA = path.join(ROOT, "data/demo");

/** The items.jsonl of a set: ../shared/data/<set>/items.jsonl when present, else data/demo/<set>.jsonl. */
export function setFile(set: string): { file: string; shared: boolean } {
  const shared = path.join(SHARED_DATA, set, "items.jsonl");
  if (existsSync(shared)) return { file: shared, shared: true };
  return { file: path.join(DEMO_DATA, `${set}.jsonl`), shared: false };
}

/**
 * One stream of JSON Lines: up to `perSet` lines of each file in turn (every line when perSet is
 * Infinity), read line by line, so nothing large sits in memory. A finite `total` cycles the files until
 * `total` lines were given (ids get a suffix to stay unique).
 */
export function concatLines(files: readonly string[], perSet: number, total = Infinity): Readable {
  async function* lines(): AsyncGenerator<string> {
    let given = 0;
    for (let round = 0; given < total; round++) {
      let any = false;
      for (const file of files) {
        let taken = 0;
        const reader = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
        for await (const line of reader) {
          if (!line.trim()) continue;
          if (taken >= perSet || given >= total) break;
          yield `${round === 0 ? line : line.replace(/^\{"id": "([^"]*)"/, `{"id": "$1#${round}"`)}\n`;
          taken += 1;
          given += 1;
          any = true;
        }
        reader.close();
      }
      if (!any || total === Infinity) return;
    }
  }
  return Readable.from(lines());
}
