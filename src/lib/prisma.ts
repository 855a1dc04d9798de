import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient, type Prisma } from "../generated/prisma/client.js";

/** A Prisma transaction client. */
export type Tx = Prisma.TransactionClient;

/**
 * Creates the Prisma client on the pg driver adapter (Prisma 7 needs no native query engine).
 * @param onConnectionError - told of a pooled connection's error (a Postgres restart cuts idle
 *   and checked-out connections; pg emits 'error' on them, which would end the process if nobody
 *   listened). The pool drops the connection and opens a new one on the next query.
 */
export function createPrisma(databaseUrl: string, onConnectionError?: (error: Error) => void): PrismaClient {
  const report = onConnectionError ?? (() => undefined);
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl }, { onPoolError: report, onConnectionError: report }) });
}

export type { PrismaClient };
