import { z } from "zod";
import { CONNECTION_PROVIDERS } from "../../lib/closed-lists.js";
import { nameSchema } from "../../lib/text-rules.js";
import { typeError } from "../../lib/validation.js";

/** Shared input schemas of the connections feature (GraphQL, CLI and MCP use the same). */

/** Requests in flight at once over one connection when none is given. */
export const DEFAULT_MAX_CONCURRENT_REQUESTS = 4;
/** The most requests in flight at once over one connection (the CHECK constraint says the same). */
export const MAX_CONCURRENT_REQUESTS_CEILING = 64;
/** Connections a workspace may have. */
export const MAX_CONNECTIONS_PER_WORKSPACE = 100;
/** The longest API key accepted, in characters. */
export const MAX_API_KEY_LENGTH = 4096;

/** The fields of a connection a caller sets (createConnection; updateConnection takes each as optional). */
export const connectionFields = {
  name: nameSchema(200).describe("Unique in the workspace."),
  provider: z
    .enum(CONNECTION_PROVIDERS, { error: `must be one of ${CONNECTION_PROVIDERS.join(", ")}` })
    .describe("openai: any OpenAI-compatible chat-completions API (OpenAI, Azure OpenAI, vLLM, Ollama, LM Studio, llama.cpp's server); anthropic: the Anthropic messages API."),
  baseUrl: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
    .max(2048, "must be at most 2048 characters")
    .nullable()
    .describe("The API's base URL (e.g. http://127.0.0.1:11434/v1 for Ollama, https://RESOURCE.openai.azure.com/openai/v1 for Azure); null or absent: the provider's own."),
  defaultModel: z
    .string({ error: typeError("a string") })
    .trim()
    .min(1, "must not be empty")
    .max(200, "must be at most 200 characters")
    .describe("The model used when a caller names none (testConnection, judges), e.g. gpt-4o-mini or claude-3-5-haiku-latest."),
  maxConcurrentRequests: z
    .number({ error: typeError("a whole number") })
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(MAX_CONCURRENT_REQUESTS_CEILING, `must be at most ${MAX_CONCURRENT_REQUESTS_CEILING}`)
    .describe(`Requests to the provider in flight at once over this connection: 1 to ${MAX_CONCURRENT_REQUESTS_CEILING} (default ${DEFAULT_MAX_CONCURRENT_REQUESTS}).`),
  apiKey: z
    .string({ error: typeError("a string") })
    .min(1, "must not be empty")
    .max(MAX_API_KEY_LENGTH, `must be at most ${MAX_API_KEY_LENGTH} characters`)
    .refine((k) => k.trim() === k && !/\s/.test(k), "must not contain whitespace")
    .describe("The provider's API key. Stored encrypted; never returned (only its last 4 characters, keyHint)."),
};

/** The input of createConnection. */
export const createConnectionInputSchema = z
  .object({
    ...connectionFields,
    baseUrl: connectionFields.baseUrl.optional(),
    maxConcurrentRequests: connectionFields.maxConcurrentRequests.optional(),
  })
  .strict();
/** A createConnection input. */
export type CreateConnectionInput = z.infer<typeof createConnectionInputSchema>;

/** The input of updateConnection: the id and the fields to change (baseUrl null: the provider's own; apiKey: rotates the key). */
export const updateConnectionInputSchema = z
  .object({
    id: z.string({ error: typeError("a connection id") }),
    name: connectionFields.name.optional(),
    provider: connectionFields.provider.optional(),
    baseUrl: connectionFields.baseUrl.optional(),
    defaultModel: connectionFields.defaultModel.optional(),
    maxConcurrentRequests: connectionFields.maxConcurrentRequests.optional(),
    apiKey: connectionFields.apiKey.optional().describe("A new API key (rotates it); absent: the key stays."),
  })
  .strict();
/** An updateConnection input. */
export type UpdateConnectionInput = z.infer<typeof updateConnectionInputSchema>;

/** The input naming one connection (deleteConnection). */
export const connectionIdInputSchema = z.object({ id: z.string({ error: typeError("a connection id") }) }).strict();

/** The input of testConnection. */
export const testConnectionInputSchema = z
  .object({
    id: z.string({ error: typeError("a connection id") }),
    model: z
      .string({ error: typeError("a string") })
      .trim()
      .min(1, "must not be empty")
      .max(200, "must be at most 200 characters")
      .describe("The model to try (default: the connection's defaultModel).")
      .optional(),
  })
  .strict();
