import type { App } from "../../src/app.js";

/** Tables that hold no workspace's data (they need no link to a workspace). */
const NOT_WORKSPACE_DATA = new Set(["_prisma_migrations"]);
/** Columns a request of the caller may change without anything happening to the data. */
const VOLATILE_COLUMNS = ["lastUsedAt"];

interface TablePlan {
  table: string;
  /** SQL condition selecting the rows of the workspaces in `$1` (a uuid[]). */
  where: string;
}

/**
 * How to find each table's rows of a set of workspaces: by its `workspaceId`, by `id` for
 * Workspace, else through a foreign key to a table that has one. A table with none of these fails
 * here, naming it (so a new table is never left out of the tenancy checks).
 */
export async function tablePlans(app: App): Promise<TablePlan[]> {
  const tables = await app.prisma.$queryRaw<{ table: string; scoped: boolean }[]>`
    SELECT t.table_name AS "table",
           EXISTS (SELECT 1 FROM information_schema.columns c WHERE c.table_schema = 'public' AND c.table_name = t.table_name AND c.column_name = 'workspaceId') AS scoped
    FROM information_schema.tables t WHERE t.table_schema = 'public' AND t.table_type = 'BASE TABLE' ORDER BY 1`;
  const keys = await app.prisma.$queryRaw<{ table: string; column: string; parent: string }[]>`
    SELECT tc.table_name AS "table", kcu.column_name AS "column", ccu.table_name AS parent
    FROM information_schema.table_constraints tc
    JOIN information_schema.key_column_usage kcu ON kcu.constraint_name = tc.constraint_name AND kcu.table_schema = tc.table_schema
    JOIN information_schema.constraint_column_usage ccu ON ccu.constraint_name = tc.constraint_name AND ccu.table_schema = tc.table_schema
    WHERE tc.constraint_type = 'FOREIGN KEY' AND tc.table_schema = 'public' ORDER BY 1, 2`;
  const scoped = new Set(tables.filter((t) => t.scoped).map((t) => t.table));
  const plans: TablePlan[] = [];
  for (const { table } of tables) {
    if (NOT_WORKSPACE_DATA.has(table)) continue;
    if (table === "Workspace") plans.push({ table, where: `"id" = ANY($1::uuid[])` });
    else if (scoped.has(table)) plans.push({ table, where: `"workspaceId" = ANY($1::uuid[])` });
    else {
      const key = keys.find((k) => k.table === table && scoped.has(k.parent));
      if (!key) throw new Error(`table ${table} has no workspaceId and no foreign key to a table with one: teach test/tenancy/snapshot.ts how to find its rows`);
      plans.push({ table, where: `"${key.column}" IN (SELECT "id" FROM "${key.parent}" WHERE "workspaceId" = ANY($1::uuid[]))` });
    }
  }
  return plans;
}

/** Per table: the row count and an md5 of the rows (as JSON, volatile columns left out) of the workspaces. */
export async function snapshot(app: App, plans: TablePlan[], workspaceIds: string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const drop = VOLATILE_COLUMNS.map((c) => ` - '${c}'`).join("");
  for (const { table, where } of plans) {
    const [row] = await app.prisma.$queryRawUnsafe<{ n: bigint; sum: string | null }[]>(
      `SELECT count(*) AS n, md5(coalesce(string_agg((to_jsonb(t)${drop})::text, '|' ORDER BY (to_jsonb(t)${drop})::text), '')) AS sum FROM "${table}" t WHERE ${where}`,
      workspaceIds,
    );
    out[table] = `${row!.n} rows, md5 ${row!.sum}`;
  }
  return out;
}
