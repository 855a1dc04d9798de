import { getNamedType, getNullableType, isCompositeType, isListType, type DocumentNode, type GraphQLField, type GraphQLSchema } from "graphql";
import { getComplexity, type ComplexityEstimator } from "graphql-query-complexity";
import { PAGE_SIZE, type PageSize } from "./connections.js";

/**
 * The read cost of a request: how much its answer can hold, computed from the document and its
 * variables before anything runs (graphql-query-complexity, with the estimator below), in the
 * manner of GitHub's GraphQL node limit:
 *
 * - every object the answer can hold counts 1, and so does every JSON value of a span or a
 *   dataset item (the application's payloads — input, output, attributes, a span's document —
 *   up to 1 MiB each); other scalars count 0;
 * - a connection multiplies what is under it by its page size: `first` or `last`, else its default
 *   page size (20; experiment items 50), so `items(first: 100) { … runs { … } }` counts its runs a
 *   hundred times, and a connection in a connection counts page size times its parent's;
 * - a list without paging multiplies by its stated bound ({@link LIST_SIZES}: `Trace.spans` 500,
 *   `ExperimentComparison.changes` 1,000, `nodes` its ids) or else by {@link DEFAULT_LIST_SIZE}
 *   (the runs of an item, the scores of a run: one entry per evaluator or score);
 * - the lists of a mutation's payload that echo its input count once (their size is paid by the
 *   mutation's weight: {@link FIELD_WEIGHTS} in limits.ts);
 * - introspection (`__schema`, `__type`) costs nothing (its size is the schema's).
 *
 * A request above {@link MAX_READ_COST} is refused before it runs (limits.ts); the cost also sets
 * what a read takes from the workspace's read budget.
 */
export const MAX_READ_COST = 20_000;

/** The types whose JSON fields hold the application's payloads (up to 1 MiB each), counted like objects. */
const PAYLOAD_TYPES: ReadonlySet<string> = new Set(["Span", "DatasetItem"]);

/** What a list without paging counts as when {@link LIST_SIZES} states nothing for it. */
export const DEFAULT_LIST_SIZE = 10;

/**
 * The stated sizes of lists without paging (`Type.field` → elements, or a function of the field's
 * arguments), where {@link DEFAULT_LIST_SIZE} would say too little or too much.
 */
export const LIST_SIZES: Readonly<Record<string, number | ((args: Record<string, unknown>) => number)>> = {
  /** At most MAX_TRACE_SPANS (spans/service.ts). */
  "Trace.spans": 500,
  /** At most MAX_COMPARE_LIMIT (experiments/schemas.ts), whatever `limit` says. */
  "ExperimentComparison.changes": 1_000,
  /** One per id asked for (at most 100: node.ts). */
  "Query.nodes": (args) => (Array.isArray(args.ids) ? args.ids.length : 100),
  /** A workspace's own rows (at most MAX_MODEL_PRICES_PER_WORKSPACE, 1,000: judges/price-schemas.ts) and the built-in ones. */
  "Query.modelPrices": 1_050,
  // Payload lists that echo the mutation's input (its weight pays for them).
  "IngestSpansPayload.spans": 1,
  "IngestSpansPayload.rejected": 1,
  "ImportDatasetPayload.badLines": 1,
};

/** The page size of a connection field: its own (`extensions.pageSize`, see connections.ts) or the default one. */
function pageSizeOf(field: GraphQLField<unknown, unknown>): PageSize {
  return (field.extensions as { pageSize?: PageSize }).pageSize ?? PAGE_SIZE;
}

/** True for a relay connection field: a `…Connection` type with `first`/`last` arguments. */
function isConnection(field: GraphQLField<unknown, unknown>): boolean {
  return getNamedType(field.type).name.endsWith("Connection") && field.args.some((a) => a.name === "first" || a.name === "last");
}

/** A count argument as asked for (never below 0; a non-number: absent). */
function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? Math.max(0, Math.floor(value)) : undefined;
}

/** The estimator of {@link MAX_READ_COST}'s rules, for graphql-query-complexity. */
export const readCostEstimator: ComplexityEstimator = ({ type, field, args, childComplexity }) => {
  if (field.name.startsWith("__") || type.name.startsWith("__")) return 0;
  const parent = type.name;
  // Inside a connection, its edges and their nodes are what the connection's page size multiplies.
  if (parent.endsWith("Connection")) return field.name === "edges" ? childComplexity : 0;
  if (parent.endsWith("Edge")) return field.name === "node" ? 1 + childComplexity : 0;
  if (isConnection(field)) {
    const size = count(args.first) ?? count(args.last) ?? pageSizeOf(field).default;
    return 1 + size * childComplexity;
  }
  const named = getNamedType(field.type);
  if (!isCompositeType(named)) return named.name === "JSON" && PAYLOAD_TYPES.has(parent) ? 1 : 0;
  if (isListType(getNullableType(field.type))) {
    const stated = LIST_SIZES[`${parent}.${field.name}`];
    const size = typeof stated === "function" ? stated(args) : (stated ?? DEFAULT_LIST_SIZE);
    return size * (1 + childComplexity);
  }
  return 1 + childComplexity;
};

/**
 * The read cost ({@link MAX_READ_COST}'s rules) of the operation of `document` named
 * `operationName` (or its only one) with these variables.
 * @throws GraphQLError when the variables do not fit the operation (execution reports those).
 */
export function readCostOf(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown> | null | undefined, operationName?: string | null): number {
  return getComplexity({ schema, query: document, variables: variables ?? {}, ...(operationName ? { operationName } : {}), estimators: [readCostEstimator] });
}
