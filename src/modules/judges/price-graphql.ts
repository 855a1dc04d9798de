import { builder } from "../../graphql/builder.js";
import { ModelPriceSourceEnum } from "../../graphql/enums.js";
import { describedBy } from "../../graphql/input-descriptions.js";
import { deleteModelPriceInputSchema, setModelPriceInputSchema } from "./price-schemas.js";
import type { DeletedModelPrice, ModelPriceRow } from "./price-service.js";

// Thin adapters over the price service (price-service.ts): the cost of judge calls, per model.

const ModelPriceRef = builder.objectRef<ModelPriceRow>("ModelPrice").implement({
  description: "The price of a model's tokens for judge calls (docs/connections.md § Prices): the workspace's own, or the built-in list price. A row prices its model name and the dated names made of it and '-' (gpt-4o-mini prices gpt-4o-mini-2024-07-18) unless a longer name is priced.",
  fields: (t) => ({
    model: t.exposeString("model", { description: "The model name as the provider reports it, or the prefix of its dated names." }),
    inputUsdPerMillion: t.exposeFloat("inputUsdPerMillion", { description: "US dollars per million input (prompt) tokens." }),
    outputUsdPerMillion: t.exposeFloat("outputUsdPerMillion", { description: "US dollars per million output (completion) tokens." }),
    source: t.field({ type: ModelPriceSourceEnum, description: "workspace: set by the workspace (it replaces a built-in price of the same model); builtin: the built-in list price.", resolve: (p) => p.source }),
    updatedAt: t.field({ type: "DateTime", nullable: true, description: "When the workspace last set it; null for a built-in price.", resolve: (p) => p.updatedAt }),
  }),
});

builder.queryField("modelPrices", (t) =>
  t.field({
    type: [ModelPriceRef],
    description: "The price table in force for the workspace's judge calls, by model name: its own prices and the built-in ones it does not replace.",
    resolve: (_root, _args, ctx) => ctx.services.modelPrices.listModelPrices(ctx.principal),
  }),
);

const set = describedBy(setModelPriceInputSchema);

builder.relayMutationField(
  "setModelPrice",
  {
    description: "Sets the workspace's price of a model (creates or replaces it); it replaces the built-in price of the same model name from the next judge call on. Costs already recorded stay as they were.",
    inputFields: (t) => ({
      model: t.string({ required: true, ...set("model") }),
      inputUsdPerMillion: t.float({ required: true, ...set("inputUsdPerMillion") }),
      outputUsdPerMillion: t.float({ required: true, ...set("outputUsdPerMillion") }),
    }),
  },
  { resolve: async (_root, { input }, ctx) => ({ price: await ctx.services.modelPrices.setModelPrice(ctx.principal, input) }) },
  { outputFields: (t) => ({ price: t.field({ type: ModelPriceRef, resolve: (p) => p.price }) }) },
);

builder.relayMutationField(
  "deleteModelPrice",
  {
    description: "Deletes the workspace's price of a model: its built-in price (or that of a shorter name it starts with) applies again, else its judge calls have no cost. NOT_FOUND when the workspace set none for it.",
    inputFields: (t) => ({ model: t.string({ required: true, ...describedBy(deleteModelPriceInputSchema)("model") }) }),
  },
  { resolve: (_root, { input }, ctx) => ctx.services.modelPrices.deleteModelPrice(ctx.principal, input) },
  {
    outputFields: (t) => ({
      deleted: t.field({ type: ModelPriceRef, description: "The workspace's price that was deleted.", resolve: (p: DeletedModelPrice) => p.deleted }),
      appliesNow: t.field({ type: ModelPriceRef, nullable: true, description: "The price that applies to the model now (built-in, or of a shorter name it starts with); null: it has no price.", resolve: (p: DeletedModelPrice) => p.appliesNow }),
    }),
  },
);
