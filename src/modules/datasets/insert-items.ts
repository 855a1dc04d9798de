import type { Prisma } from "../../generated/prisma/client.js";
import type { ItemColumns } from "./item-record.js";

/** One item row to insert: its columns and its position in the dataset. */
export type ItemRow = ItemColumns & { position: number };

/**
 * Inserts a chunk of items in one statement: the rows travel as one jsonb array and are expanded
 * by `jsonb_to_recordset` — an order of magnitude faster than an ORM multi-row insert of nine
 * JSON columns. A JSON null becomes SQL NULL (metadata defaults to {}).
 */
export async function insertItems(tx: Prisma.TransactionClient, datasetId: string, workspaceId: string, rows: readonly ItemRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  return tx.$executeRawUnsafe(
    `INSERT INTO "DatasetItem" (id, "datasetId", "workspaceId", position, "externalId", input, output, "expectedOutput", context, "toolCalls", "expectedToolCalls", "traceSpans", metadata)
     SELECT gen_random_uuid(), $1::uuid, $2::uuid, x.position, x."externalId", x.input, x.output, x."expectedOutput", x.context, x."toolCalls", x."expectedToolCalls", x."traceSpans", coalesce(x.metadata, '{}'::jsonb)
     FROM jsonb_to_recordset($3::jsonb) AS x(position int, "externalId" text, input jsonb, output jsonb, "expectedOutput" jsonb, context jsonb,
                                             "toolCalls" jsonb, "expectedToolCalls" jsonb, "traceSpans" jsonb, metadata jsonb)`,
    datasetId,
    workspaceId,
    JSON.stringify(rows),
  );
}
