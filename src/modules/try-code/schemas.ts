import { z } from "zod";

/** Shared input schemas of try_code (GraphQL, CLI and MCP use the same). */

/** Largest inline sample document, in bytes of JSON. */
export const MAX_DOCUMENT_BYTES = 1024 * 1024;

/** The keys of the sample document (docs/document.md § The sample document); every one optional. */
export const sampleDocumentSchema = z
  .object({
    input: z.unknown().optional(),
    output: z.unknown().optional(),
    attributes: z.record(z.string(), z.unknown(), { error: "must be an object of attribute key to value" }).optional(),
    expected_output: z.unknown().optional(),
    trace: z
      .object({ spans: z.array(z.record(z.string(), z.unknown(), { error: "each span must be an object" }), { error: "must be a list of spans" }) }, { error: 'must be {"spans": [...]}' })
      .optional(),
    scores: z
      .record(z.string(), z.record(z.string(), z.unknown(), { error: "must be an object of score name to value" }), { error: "must be an object of evaluator name to scores" })
      .optional(),
    metadata: z.record(z.string(), z.unknown(), { error: "must be an object" }).optional(),
  }, { error: "must be an object (the sample document)" })
  .strict();

/** Library pins of a draft: library name → version. */
export const libraryPinsSchema = z.record(z.string(), z.number().int().min(1, "must be 1 or more"), { error: "must be an object of library name to version" });

/** The input of tryCode, once the GraphQL ids are decoded. */
export interface TryCodeInput {
  /** Draft code (with `paramSpecs`), or … */
  sourceCode?: string | null;
  /** The draft's settings (only with sourceCode). */
  paramSpecs?: unknown;
  /** The draft's shared-library pins (only with sourceCode). */
  libraryPins?: unknown;
  /** … a starter's code and settings, or … */
  starterId?: string | null;
  /** … a saved template's code and settings, at `templateVersion` (default: the latest). */
  templateId?: string | null;
  templateVersion?: number | null;
  /** Setting values for the run: checked against the settings used; absent ones take defaults. */
  params?: unknown;
  /** The sample: a stored span (its trace is the stored trace), … */
  spanId?: string | null;
  /** … an inline span (in the ingestSpans shape; its trace is that span alone), or … */
  span?: unknown;
  /** … an inline dataset item: the sample document itself, or a line of items.jsonl, or … */
  document?: unknown;
  /** … a stored dataset item (its id). */
  datasetItemId?: string | null;
}
