import type { z } from "zod";
import { Prisma, type Span } from "../../generated/prisma/client.js";
import { BadUserInputError } from "../../lib/errors.js";
import type { Principal } from "../../lib/principal.js";
import type { PrismaClient } from "../../lib/prisma.js";
import { NIL_UUID, isUuid } from "../../lib/uuid.js";
import { parseIssues } from "../../lib/validation.js";
import { spanFilterSchema } from "./schemas.js";

/** The filters of a span listing, parsed. */
export type SpanFilter = NonNullable<z.output<typeof spanFilterSchema>>;

/**
 * One page request in keyset terms (as Pothos' resolveCursorConnection gives it): at most `limit`
 * spans after or before a cursor, newest start first; `inverted` reads the other way (`last`).
 */
export interface SpanPageRequest {
  after?: string;
  before?: string;
  limit: number;
  inverted: boolean;
}

/** The cursor of a span in a listing: its start time and id (the listing's order), opaque to clients. */
export function spanCursor(span: Pick<Span, "startTime" | "id">): string {
  return Buffer.from(JSON.stringify([span.startTime.toISOString(), span.id])).toString("base64url");
}

function parseCursor(cursor: string, path: string): { startTime: Date; id: string } {
  try {
    const [iso, id] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as [string, string];
    const startTime = new Date(iso);
    if (typeof id === "string" && isUuid(id) && !Number.isNaN(startTime.getTime())) return { startTime, id };
  } catch {
    // falls through to the error below
  }
  throw new BadUserInputError([{ path, message: "is not a cursor of this listing (cursors come from its pageInfo and edges)" }]);
}

/** A glob (`*` any characters, `?` one) as a LIKE pattern with `\` escaping LIKE's own `%`, `_` and `\`. */
export function globToLike(glob: string): string {
  return [...glob].map((c) => (c === "*" ? "%" : c === "?" ? "_" : /[%_\\]/.test(c) ? `\\${c}` : c)).join("");
}

/** The SQL conditions of a filter on `"Span" s` (the workspace condition included). */
function conditions(workspaceId: string, filter: SpanFilter): Prisma.Sql[] {
  const where: Prisma.Sql[] = [Prisma.sql`s."workspaceId" = ${workspaceId}::uuid`];
  if (filter.traceId) where.push(Prisma.sql`s."traceId" = ${filter.traceId}`);
  if (filter.kind) where.push(Prisma.sql`s.kind = ${filter.kind}`);
  if (filter.name) {
    where.push(/[*?]/.test(filter.name) ? Prisma.sql`s.name LIKE ${globToLike(filter.name)} ESCAPE '\\'` : Prisma.sql`s.name = ${filter.name}`);
  }
  if (filter.from) where.push(Prisma.sql`s."startTime" >= ${filter.from}`);
  if (filter.to) where.push(Prisma.sql`s."startTime" < ${filter.to}`);
  const hasValue = filter.scoreValue !== undefined && filter.scoreValue !== null;
  const hasScore = Boolean(filter.scoreName) || hasValue || typeof filter.scoreMin === "number" || typeof filter.scoreMax === "number";
  if (filter.evaluatorId || filter.outcome || hasScore) {
    const run: Prisma.Sql[] = [Prisma.sql`r."spanId" = s.id`];
    if (filter.evaluatorId) run.push(Prisma.sql`r."evaluatorId" = ${isUuid(filter.evaluatorId) ? filter.evaluatorId : NIL_UUID}::uuid`);
    if (filter.outcome) run.push(Prisma.sql`r.outcome = ${filter.outcome}`);
    if (hasScore) {
      const score: Prisma.Sql[] = [Prisma.sql`sc."runId" = r.id`];
      if (filter.scoreName) score.push(Prisma.sql`sc.name = ${filter.scoreName}`);
      if (hasValue) score.push(Prisma.sql`sc.value = ${JSON.stringify(filter.scoreValue)}::jsonb`);
      if (typeof filter.scoreMin === "number") score.push(Prisma.sql`sc."numericValue" >= ${filter.scoreMin}`);
      if (typeof filter.scoreMax === "number") score.push(Prisma.sql`sc."numericValue" <= ${filter.scoreMax}`);
      run.push(Prisma.sql`EXISTS (SELECT 1 FROM "Score" sc WHERE ${Prisma.join(score, " AND ")})`);
    }
    where.push(Prisma.sql`EXISTS (SELECT 1 FROM "Run" r WHERE ${Prisma.join(run, " AND ")})`);
  }
  return where;
}

/**
 * A page of the workspace's spans, newest start first (ties by id), filtered entirely in SQL, so
 * a page is never short while later spans match and `limit` rows mean there are more.
 * @param filter - {@link spanFilterSchema}; `evaluatorId` is a raw UUID (a malformed one matches nothing).
 * @returns up to `page.limit` spans, in the order asked (reversed when `inverted`).
 * @throws BadUserInputError for a bad filter or cursor, naming the field.
 */
export async function listSpans(prisma: PrismaClient, principal: Principal, filter: unknown, page: SpanPageRequest): Promise<Span[]> {
  const { data, issues } = parseIssues(spanFilterSchema, filter, "filter");
  if (issues.length) throw new BadUserInputError(issues);
  const where = conditions(principal.workspaceId, data ?? {});
  // Newest first: "after" a cursor means older; `last`/`before` read from the other end.
  const older = page.inverted ? page.before : page.after;
  const newer = page.inverted ? page.after : page.before;
  if (older) {
    const c = parseCursor(older, page.inverted ? "before" : "after");
    where.push(Prisma.sql`(s."startTime", s.id) < (${c.startTime}, ${c.id}::uuid)`);
  }
  if (newer) {
    const c = parseCursor(newer, page.inverted ? "after" : "before");
    where.push(Prisma.sql`(s."startTime", s.id) > (${c.startTime}, ${c.id}::uuid)`);
  }
  const order = page.inverted ? Prisma.sql`s."startTime" ASC, s.id ASC` : Prisma.sql`s."startTime" DESC, s.id DESC`;
  const ids = await prisma.$queryRaw<{ id: string }[]>`SELECT s.id FROM "Span" s WHERE ${Prisma.join(where, " AND ")} ORDER BY ${order} LIMIT ${page.limit}`;
  if (ids.length === 0) return [];
  const rows = await prisma.span.findMany({ where: { id: { in: ids.map((r) => r.id) } } });
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.map((r) => byId.get(r.id)).filter((row): row is Span => row !== undefined);
}
