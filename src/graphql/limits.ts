import { EnvelopArmorPlugin } from "@escape.tech/graphql-armor";
import { GraphQLError, Kind, type DocumentNode, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionSetNode } from "graphql";
import type { Plugin } from "graphql-yoga";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { BadUserInputError, RateLimitedError } from "../lib/errors.js";
import { toGraphQLError } from "./errors.js";
import { unstorableValues } from "../lib/json-safety.js";
import type { Redis } from "../lib/redis.js";

/** Limits on one request's document (units in the names). */
export const REQUEST_LIMITS = {
  /** Deepest selection (fields nested in fields). */
  maxDepth: 12,
  /** Aliases in one document (500 aliases of a big field would multiply the response). */
  maxAliases: 30,
  /** Tokens of the document, checked while parsing (a document nested 20,000 deep never reaches the parser's recursion). */
  maxTokens: 5_000,
  /** Directives in one document. */
  maxDirectives: 50,
  /** The weighted cost of the fields that do work (see {@link FIELD_WEIGHTS}). */
  maxWeightedCost: 100,
} as const;

/**
 * What a root field costs in {@link REQUEST_LIMITS.maxWeightedCost}: sandbox work counts most
 * (one tryCode runs user code for up to its wall-clock limit), writes that queue work next;
 * every other field costs 1. Four tryCode calls, or ten ingests, fit in one request.
 */
export const FIELD_WEIGHTS: Readonly<Record<string, number>> = {
  tryCode: 25,
  ingestSpans: 10,
  createExperiment: 10,
  retryExperiment: 10,
  importDataset: 10,
  createBackfill: 10,
  estimateBackfill: 5,
  compareExperiments: 5,
  dependencyGraph: 5,
};

/** The root fields (with fragments and aliases expanded) of the operation that will run. */
function rootFields(document: DocumentNode, operationName: string | null | undefined): { kind: string; names: string[] } | null {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const operation = operationName ? operations.find((o) => o.name?.value === operationName) : operations[0];
  if (!operation) return null;
  const fragments = new Map(document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((f) => [f.name.value, f]));
  const names: string[] = [];
  const walk = (set: SelectionSetNode, depth: number) => {
    if (depth > 10) return;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) names.push(selection.name.value);
      else if (selection.kind === Kind.INLINE_FRAGMENT) walk(selection.selectionSet, depth + 1);
      else {
        const fragment = fragments.get(selection.name.value);
        if (fragment) walk(fragment.selectionSet, depth + 1);
      }
    }
  };
  walk(operation.selectionSet, 0);
  return { kind: operation.operation, names };
}

function limitError(message: string, original?: GraphQLError): GraphQLError {
  return new GraphQLError(message.replace(/^Syntax Error: /, ""), { nodes: original?.nodes, extensions: { code: "LIMIT_EXCEEDED", http: { status: 400 } } });
}

/**
 * Depth, alias, token, directive and cost limits on every document (graphql-armor), their errors
 * given the code LIMIT_EXCEEDED, and the weighted cost of the root fields that do work.
 */
export function requestLimitPlugins(): Plugin[] {
  // armor throws its own uncoded error after calling onReject: throwing ours first gives the code.
  const onReject = [(_: unknown, error: GraphQLError) => {
    throw limitError(error.message, error);
  }];
  const armor = EnvelopArmorPlugin({
    maxDepth: { n: REQUEST_LIMITS.maxDepth, ignoreIntrospection: true, exposeLimits: true, onReject },
    maxAliases: { n: REQUEST_LIMITS.maxAliases, exposeLimits: true, onReject },
    maxTokens: { n: REQUEST_LIMITS.maxTokens, exposeLimits: true, onReject },
    maxDirectives: { n: REQUEST_LIMITS.maxDirectives, exposeLimits: true, onReject },
    // armor's structural cost grows with depth and refused ordinary result queries (60,916 for a
    // comparison of two experiments): the weighted cost below is the cost limit instead.
    costLimit: { enabled: false },
    blockFieldSuggestion: { enabled: false },
  }) as Plugin;
  const guards: Plugin = {
    onParams({ params }) {
      // graphql-js parses recursively: a document nested a few thousand deep overflows the stack
      // before any token limit; refuse it from its text first.
      const query = typeof params.query === "string" ? params.query : "";
      const nesting = maxNesting(query);
      if (nesting > MAX_NESTING) throw limitError(`the document nests ${nesting} levels deep (brackets); at most ${MAX_NESTING}`);
      // Values that cannot be stored as sent (U+0000, lone surrogates, 1e400, absurd nesting) are
      // refused naming the variable path, before anything runs. Spans of ingestSpans are checked
      // one by one by the ingest (a bad span is rejected by index, the others stored).
      if (params.variables && typeof params.variables === "object") {
        const ingest = query.includes("ingestSpans");
        const issues = unstorableValues(params.variables, {
          skip: ingest ? (path) => path.some((p, i) => p === "spans" && typeof path[i + 1] === "number") : undefined,
        });
        if (issues.length) throw new BadUserInputError(issues.map((i) => ({ ...i, path: `variables.${i.path}` })));
      }
    },
    onValidate({ params }) {
      return ({ result, setResult }) => {
        if (result.length > 0) return;
        const found = rootFields(params.documentAST, undefined);
        if (!found) return;
        const cost = found.names.reduce((sum, name) => sum + (FIELD_WEIGHTS[name] ?? 1), 0);
        if (cost > REQUEST_LIMITS.maxWeightedCost) {
          setResult([limitError(`the request's weighted cost ${cost} is above ${REQUEST_LIMITS.maxWeightedCost} (tryCode costs ${FIELD_WEIGHTS.tryCode}, ingestSpans ${FIELD_WEIGHTS.ingestSpans}, other fields 1): split it`)]);
        }
      };
    },
  };
  return [guards, armor];
}

/** Deepest bracket nesting ({, [, () of a document's text, outside string literals. */
const MAX_NESTING = 64;
function maxNesting(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash escape
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 123 || c === 91 || c === 40) max = Math.max(max, ++depth);
    else if (c === 125 || c === 93 || c === 41) depth--;
  }
  return max;
}

/** Per-workspace rates (calls per minute; 0: no limit). */
export interface RateLimits {
  ingestPerMinute: number;
  tryCodePerMinute: number;
  mutationsPerMinute: number;
}

/** The per-workspace budgets; `ingest` is shared by `ingestSpans` and `POST /v1/traces`. */
export type RateBudget = "ingest" | "try-code" | "mutation";

/**
 * A per-workspace limiter of `points` calls a minute for one budget, counted in Redis under
 * `<prefix>:rate:<budget>` (so every API process and every transport shares it); an in-memory
 * limiter stands in while Redis is down. @returns null when `points` is 0 (no limit).
 */
export function rateLimiter(redis: Redis, budget: RateBudget, points: number, prefix: string): RateLimiterRedis | null {
  return points > 0
    ? new RateLimiterRedis({ storeClient: redis, keyPrefix: `${prefix}:rate:${budget}`, points, duration: 60, insuranceLimiter: new RateLimiterMemory({ points, duration: 60 }) })
    : null;
}

/**
 * Takes one call of `workspaceId` from a limiter. @returns null when it fits, else the seconds
 * to wait before the next call fits (at least 1).
 */
export async function takeRate(limiter: RateLimiterRedis | null, workspaceId: string): Promise<number | null> {
  if (!limiter) return null;
  try {
    await limiter.consume(workspaceId, 1);
    return null;
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    return Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
  }
}

/**
 * Per-workspace rate limits on mutations, counted in Redis (shared by every API process; an
 * in-memory limiter stands in while Redis is down): `ingestSpans`, `tryCode` and every other
 * mutation each have their own budget per minute, every root field (alias) counting once.
 * Past it the request does nothing and gets HTTP 429, LIMIT_EXCEEDED and `Retry-After`.
 */
export function rateLimitPlugin(redis: Redis, limits: RateLimits, prefix: string): Plugin {
  const make = (name: RateBudget, points: number) => rateLimiter(redis, name, points, prefix);
  const limiters = { ingestSpans: make("ingest", limits.ingestPerMinute), tryCode: make("try-code", limits.tryCodePerMinute), mutation: make("mutation", limits.mutationsPerMinute) };
  const budgetOf = (field: string): keyof typeof limiters => (field === "ingestSpans" || field === "tryCode" ? field : "mutation");
  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const found = rootFields(args.document, args.operationName);
      const workspaceId = (args.contextValue as { principal?: { workspaceId?: string } }).principal?.workspaceId;
      if (!found || found.kind !== "mutation" || !workspaceId) return;
      const counts = new Map<keyof typeof limiters, number>();
      for (const name of found.names) counts.set(budgetOf(name), (counts.get(budgetOf(name)) ?? 0) + 1);
      for (const [budget, points] of counts) {
        const limiter = limiters[budget];
        if (!limiter) continue;
        try {
          await limiter.consume(workspaceId, points);
        } catch (rejection) {
          if (!(rejection instanceof RateLimiterRes)) throw rejection;
          const what = budget === "mutation" ? "mutations" : `${budget} calls`;
          const error = new RateLimitedError(`rate limit: at most ${limiter.points} ${what} per minute per workspace; retry in ${Math.ceil(rejection.msBeforeNext / 1000)} s`, rejection.msBeforeNext / 1000);
          setResultAndStopExecution({ errors: [toGraphQLError(error)] });
          return;
        }
      }
    },
  };
}
