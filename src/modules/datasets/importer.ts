import type { Readable } from "node:stream";
import { BadUserInputError, LimitExceededError } from "../../lib/errors.js";
import type { PrismaClient } from "../../lib/prisma.js";
import { insertItems, type ItemRow } from "./insert-items.js";
import { itemColumnsOf } from "./item-record.js";
import { readJsonLines } from "./jsonl.js";
import type { BadLineMode } from "./schemas.js";

/** Items inserted per statement; only one chunk is held in memory at a time. */
export const IMPORT_CHUNK = 500;
/** At most this many items in one import. */
export const MAX_IMPORT_ITEMS = 200_000;
/** At most this many bad lines are listed (all are counted). */
export const MAX_REPORTED_BAD_LINES = 100;
/** An import must finish within this time (it runs in one transaction). */
const IMPORT_TIMEOUT_MS = 10 * 60_000;

/** A line that was not imported, by its 1-based line number. */
export interface BadLine {
  line: number;
  message: string;
}

/** What an import did. */
export interface ImportReport {
  datasetId: string;
  /** Items added by this import. */
  imported: number;
  /** The dataset's item count after the import. */
  itemCount: number;
  /** The first {@link MAX_REPORTED_BAD_LINES} bad lines (skipped in `skip` mode). */
  badLines: BadLine[];
  /** Every bad line, counted. */
  badLineCount: number;
}

/** What to import into. */
export interface ImportTarget {
  workspaceId: string;
  /** The dataset's name: created when the workspace has none by that name, else appended to. */
  name: string;
  /** The description of a dataset created by this import. */
  description?: string;
}

/** The message of a bad line: the JSON error, or each shape issue with its field path. */
function describe(issues: { path: string; message: string }[]): string {
  return issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ");
}

/**
 * Imports an items.jsonl stream into a dataset (created when missing) in ONE transaction,
 * inserting {@link IMPORT_CHUNK} items per statement as the lines are read — so 10,000 items
 * never sit in memory, and a failed import leaves nothing behind. The dataset row is locked for
 * the import, so concurrent imports into one dataset append one after the other.
 *
 * Bad lines (not UTF-8, longer than 1 MiB, not JSON, holding what cannot be stored — U+0000, a
 * lone surrogate, nesting past 64 — or not the items shape) are reported by line number. `abort` (the default)
 * imports nothing when any line is bad, reading on to report every bad line; `skip` imports the
 * good lines and reports the bad ones.
 * @throws BadUserInputError in `abort` mode when a line is bad (issues at `line N`), or when the
 *   file has no item; LimitExceededError past {@link MAX_IMPORT_ITEMS}.
 */
export async function importJsonLines(prisma: PrismaClient, target: ImportTarget, stream: Readable, mode: BadLineMode = "abort"): Promise<ImportReport> {
  return prisma.$transaction(
    async (tx) => {
      const dataset = await tx.dataset.upsert({
        where: { workspaceId_name: { workspaceId: target.workspaceId, name: target.name } },
        create: { workspaceId: target.workspaceId, name: target.name, description: target.description ?? "" },
        update: {},
      });
      const [locked] = await tx.$queryRaw<{ itemCount: number }[]>`SELECT "itemCount" FROM "Dataset" WHERE id = ${dataset.id}::uuid FOR UPDATE`;
      const start = locked!.itemCount;
      const badLines: BadLine[] = [];
      let badLineCount = 0;
      let imported = 0;
      let chunk: ItemRow[] = [];
      const flush = async () => {
        await insertItems(tx, dataset.id, target.workspaceId, chunk);
        chunk = [];
      };
      for await (const entry of readJsonLines(stream)) {
        const parsed = entry.error === undefined ? itemColumnsOf(entry.value) : null;
        const message = entry.error ?? (parsed?.issues ? describe(parsed.issues) : undefined);
        if (message !== undefined || !parsed?.columns) {
          badLineCount += 1;
          if (badLines.length < MAX_REPORTED_BAD_LINES) badLines.push({ line: entry.line, message: message ?? "bad line" });
          continue;
        }
        if (mode === "abort" && badLineCount > 0) continue; // nothing will be kept: only look for more bad lines
        if (imported >= MAX_IMPORT_ITEMS) throw new LimitExceededError(`an import holds at most ${MAX_IMPORT_ITEMS} items`);
        chunk.push({ ...parsed.columns, position: start + imported });
        imported += 1;
        if (chunk.length >= IMPORT_CHUNK) await flush();
      }
      if (mode === "abort" && badLineCount > 0) {
        const more = badLineCount - badLines.length;
        throw new BadUserInputError([
          ...badLines.map((b) => ({ path: `line ${b.line}`, message: b.message })),
          ...(more > 0 ? [{ path: "", message: `and ${more} more bad lines` }] : []),
          { path: "", message: `nothing was imported (${badLineCount} bad line${badLineCount === 1 ? "" : "s"}); fix them, or skip bad lines to import the rest` },
        ]);
      }
      await flush();
      if (imported === 0 && badLineCount === 0 && start === 0) throw new BadUserInputError([{ path: "file", message: "holds no item" }]);
      const updated = await tx.dataset.update({ where: { id: dataset.id }, data: { itemCount: start + imported } });
      return { datasetId: dataset.id, imported, itemCount: updated.itemCount, badLines, badLineCount };
    },
    { timeout: IMPORT_TIMEOUT_MS, maxWait: 30_000 },
  );
}
