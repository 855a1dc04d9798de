import type { ModelPriceSource } from "../../lib/closed-lists.js";
import { BadUserInputError, LimitExceededError, NotFoundError } from "../../lib/errors.js";
import type { Logger } from "../../lib/logger.js";
import type { Principal } from "../../lib/principal.js";
import type { PrismaClient } from "../../lib/prisma.js";
import { parseIssues } from "../../lib/validation.js";
import { deleteModelPriceInputSchema, MAX_MODEL_PRICES_PER_WORKSPACE, setModelPriceInputSchema } from "./price-schemas.js";
import { BUILTIN_PRICES, priceOf, type Price } from "./prices.js";

/** One row of a workspace's price table, as listed: a model's price and where it comes from. */
export interface ModelPriceRow extends Price {
  /** The model name (or the prefix of dated names) the row prices. */
  model: string;
  source: ModelPriceSource;
  /** When the workspace last set it; null for a built-in row. */
  updatedAt: Date | null;
}

/** What deleteModelPrice answers: the row deleted, and the price that now applies to that model name (null: none). */
export interface DeletedModelPrice {
  deleted: ModelPriceRow;
  /** The row that prices the model now: its built-in row, a shorter prefix's row (see priceOf), or null when it has no price any more. */
  appliesNow: ModelPriceRow | null;
}

/** What the price service needs. */
export interface PriceServiceDeps {
  prisma: PrismaClient;
  logger: Logger;
}

const builtinRow = (model: string, price: Readonly<Price>): ModelPriceRow => ({ model, inputUsdPerMillion: price.inputUsdPerMillion, outputUsdPerMillion: price.outputUsdPerMillion, source: "builtin", updatedAt: null });
const workspaceRow = (r: { model: string; inputUsdPerMillion: number; outputUsdPerMillion: number; updatedAt: Date }): ModelPriceRow => ({ model: r.model, inputUsdPerMillion: r.inputUsdPerMillion, outputUsdPerMillion: r.outputUsdPerMillion, source: "workspace", updatedAt: r.updatedAt });

/**
 * The price table of judge calls (docs/connections.md § Prices): the built-in list prices
 * (prices.ts, BUILTIN_PRICES) and a workspace's own rows (ModelPrice), which replace the built-in
 * row of the same model name and price models the table lacks. The cost of a call is
 * `costOf(model, usage, await overridesOf(workspaceId))` (prices.ts).
 */
export function createPriceService(deps: PriceServiceDeps) {
  const { prisma, logger } = deps;

  /** The workspace's own prices by model name. */
  async function overridesOf(workspaceId: string): Promise<Map<string, Price>> {
    const rows = await prisma.modelPrice.findMany({ where: { workspaceId }, select: { model: true, inputUsdPerMillion: true, outputUsdPerMillion: true } });
    return new Map(rows.map((r) => [r.model, { inputUsdPerMillion: r.inputUsdPerMillion, outputUsdPerMillion: r.outputUsdPerMillion }]));
  }

  /** The workspace's own rows. */
  const ownRows = (workspaceId: string) => prisma.modelPrice.findMany({ where: { workspaceId }, select: { model: true, inputUsdPerMillion: true, outputUsdPerMillion: true, updatedAt: true } });

  return {
    /**
     * The workspace's prices by model name: for the judge executor, to pass to costOf. One query
     * of the workspace's ModelPrice rows (the built-in table is not in it).
     * @returns model name → price in USD per million tokens; empty when the workspace set none.
     */
    overridesOf,

    /**
     * The price table in force for the workspace, by model name: its own rows (source
     * `workspace`) and the built-in rows it does not replace (source `builtin`). A built-in row
     * the workspace replaced is not listed (deleteModelPrice brings it back).
     */
    async listModelPrices(principal: Principal): Promise<ModelPriceRow[]> {
      const rows = (await ownRows(principal.workspaceId)).map(workspaceRow);
      const taken = new Set(rows.map((r) => r.model));
      for (const [model, price] of BUILTIN_PRICES) if (!taken.has(model)) rows.push(builtinRow(model, price));
      return rows.sort((a, b) => (a.model < b.model ? -1 : a.model > b.model ? 1 : 0));
    },

    /**
     * Sets the workspace's price of a model (creates or replaces its row); it replaces the
     * built-in price of the same name, if any, from the next judge call on.
     * @throws BAD_USER_INPUT naming the field (model: 1 to 200 visible characters; prices: numbers 0 to 10,000); LIMIT_EXCEEDED past 1000 rows.
     */
    async setModelPrice(principal: Principal, input: unknown): Promise<ModelPriceRow> {
      const { data, issues } = parseIssues(setModelPriceInputSchema, input);
      if (!data) throw new BadUserInputError(issues);
      const where = { workspaceId_model: { workspaceId: principal.workspaceId, model: data.model } };
      const exists = await prisma.modelPrice.findUnique({ where, select: { id: true } });
      if (!exists && (await prisma.modelPrice.count({ where: { workspaceId: principal.workspaceId } })) >= MAX_MODEL_PRICES_PER_WORKSPACE) {
        throw new LimitExceededError(`a workspace may set at most ${MAX_MODEL_PRICES_PER_WORKSPACE} model prices (deleteModelPrice the ones no longer used)`);
      }
      const prices = { inputUsdPerMillion: data.inputUsdPerMillion, outputUsdPerMillion: data.outputUsdPerMillion };
      const row = await prisma.modelPrice.upsert({ where, create: { workspaceId: principal.workspaceId, model: data.model, ...prices }, update: prices });
      logger.info({ workspaceId: principal.workspaceId, model: data.model, ...prices, replacesBuiltin: BUILTIN_PRICES.has(data.model) }, "model price set");
      return workspaceRow(row);
    },

    /**
     * Deletes the workspace's price of a model: its built-in price (or a shorter prefix's row)
     * applies again, else the model has no price (its calls cost null).
     * @throws NOT_FOUND when the workspace set no price for that model (built-in rows cannot be deleted: override them).
     */
    async deleteModelPrice(principal: Principal, input: unknown): Promise<DeletedModelPrice> {
      const { data, issues } = parseIssues(deleteModelPriceInputSchema, input);
      if (!data) throw new BadUserInputError(issues);
      const where = { workspaceId: principal.workspaceId, model: data.model };
      const found = await prisma.modelPrice.findFirst({ where });
      // deleteMany: a concurrent delete of the same row is the same NOT_FOUND, not an unexpected error.
      if (!found || (await prisma.modelPrice.deleteMany({ where: { id: found.id } })).count === 0) {
        throw new NotFoundError("model price", data.model, BUILTIN_PRICES.has(data.model) ? "the workspace set no price for it; its built-in price can be replaced with setModelPrice, not deleted" : "the workspace set no price for it (modelPrices lists them)");
      }
      logger.info({ workspaceId: principal.workspaceId, model: data.model }, "model price deleted");
      const rest = await ownRows(principal.workspaceId);
      const applied = priceOf(data.model, new Map(rest.map((r) => [r.model, r])));
      const appliesNow = !applied ? null : applied.source === "workspace" ? workspaceRow(rest.find((r) => r.model === applied.key)!) : builtinRow(applied.key, applied.price);
      return { deleted: workspaceRow(found), appliesNow };
    },
  };
}

/** The price service. */
export type PriceService = ReturnType<typeof createPriceService>;
