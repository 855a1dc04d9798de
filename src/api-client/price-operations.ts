import * as Doc from "./generated/graphql.js";
import type { ApiClient } from "./http.js";

/**
 * The operations of model prices (the cost of judge calls), for the CLI (`oodle genai prices …`)
 * and the MCP tool `genai_prices`, over the generated documents (documents/prices.graphql),
 * reached as `ops.prices`.
 */

/** A price row as the CLI and MCP read it. */
export type ModelPriceRecord = Doc.ModelPriceFieldsFragment;
/** What deleteModelPrice answers: the row deleted and the price that applies now (null: none). */
export type DeletedModelPriceRecord = Doc.DeleteModelPriceMutation["deleteModelPrice"];

/** The price operations over one API client. */
export function createPriceOperations(api: ApiClient) {
  return {
    /** The price table in force for the workspace, by model name (its own rows and the built-in ones it does not replace). */
    listModelPrices: async (): Promise<ModelPriceRecord[]> => (await api.request(Doc.ListModelPricesDocument)).modelPrices,
    /** Sets the workspace's price of a model (USD per million tokens). */
    setModelPrice: async (input: Doc.SetModelPriceInput): Promise<ModelPriceRecord> => (await api.request(Doc.SetModelPriceDocument, { input })).setModelPrice.price,
    /** Deletes the workspace's price of a model. @throws ApiError NOT_FOUND when it set none. */
    deleteModelPrice: async (model: string): Promise<DeletedModelPriceRecord> => (await api.request(Doc.DeleteModelPriceDocument, { input: { model } })).deleteModelPrice,
  };
}
