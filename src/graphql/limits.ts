import { EnvelopArmorPlugin } from "@escape.tech/graphql-armor";
import { GraphQLError, Kind, type DocumentNode, type ExecutionArgs, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionSetNode } from "graphql";
import type { Plugin } from "graphql-yoga";
import { RateLimiterRes, type RateLimiterRedis } from "rate-limiter-flexible";
import { rateLimiter, type RateBudget } from "../lib/rate-limits.js";
import { BadUserInputError, LimitExceededError, RateLimitedError } from "../lib/errors.js";
import { toGraphQLError } from "./errors.js";
import { unstorableValues } from "../lib/json-safety.js";
import type { Redis } from "../lib/redis.js";
import { MAX_READ_COST, readCostOf } from "./query-cost.js";

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
  /** The weighted cost of the root fields that do work (see {@link FIELD_WEIGHTS}). */
  maxWeightedCost: 100,
  /** The read cost: objects and JSON values the answer can hold, connections weighed by page size (query-cost.ts). */
  maxReadCost: MAX_READ_COST,
  /** Bytes of the JSON answer (`data` and `errors`); more is refused whole (as much as one ingestSpans call may send). */
  maxResponseBytes: 8 * 1024 * 1024,
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

/**
 * A refused request as the AppError every limit answers: LIMIT_EXCEEDED, HTTP 400 (errors.ts:
 * the same request will be refused again, unlike a rate limit's 429). An AppError, not a
 * GraphQLError: yoga marks a GraphQLError thrown while parsing (the token limit) as a parse error,
 * answered 200 under `application/json`; an AppError goes through maskError to its own status.
 */
function limitError(message: string, details?: Record<string, unknown>): LimitExceededError {
  return new LimitExceededError(message.replace(/^Syntax Error: /, ""), details);
}

/** The JSON size in bytes of an answer's `data` and `errors` (iterative: no stack for deep JSON). */
function answerBytes(result: { data?: unknown; errors?: readonly unknown[] }): number {
  let bytes = 0;
  const stack: unknown[] = [result.data, result.errors];
  while (stack.length) {
    const value = stack.pop();
    if (typeof value === "string") bytes += Buffer.byteLength(value, "utf8") + 2;
    else if (typeof value === "number" || typeof value === "boolean" || value === null) bytes += String(value).length;
    else if (Array.isArray(value)) {
      bytes += 1 + value.length;
      stack.push(...value);
    } else if (typeof value === "object" && value !== undefined) {
      if (value instanceof GraphQLError) {
        bytes += Buffer.byteLength(value.message, "utf8") + 100;
        continue;
      }
      for (const [key, v] of Object.entries(value)) {
        bytes += Buffer.byteLength(key, "utf8") + 4;
        stack.push(v);
      }
    }
  }
  return bytes;
}

/**
 * The read-cost check of one operation, before it runs. @returns the LIMIT_EXCEEDED error, or
 * null with the cost (null too when the variables do not fit: execution reports that).
 */
function checkReadCost(args: ExecutionArgs): { cost: number; error: GraphQLError | null } | null {
  let cost: number;
  try {
    cost = readCostOf(args.schema, args.document, args.variableValues as Record<string, unknown> | undefined, args.operationName);
  } catch {
    return null;
  }
  if (cost <= REQUEST_LIMITS.maxReadCost) return { cost, error: null };
  const message =
    `the request's read cost ${cost} is above ${REQUEST_LIMITS.maxReadCost}: every object of the answer counts 1 (and every JSON payload of a span or dataset item), and a connection ` +
    `multiplies what is under it by its page size (first/last), a list by its size (10 unless stated); ask for smaller pages, fewer aliases or fewer nested lists`;
  return { cost, error: toGraphQLError(limitError(message, { cost, limit: REQUEST_LIMITS.maxReadCost })) };
}

/**
 * Depth, alias, token and directive limits on every document (graphql-armor), bracket nesting
 * and unstorable variables (checked on the text, before parsing), the weighted cost of the root
 * fields that do work, the read cost of every operation (query-cost.ts: refused before it runs)
 * and the size of every answer (refused whole past {@link REQUEST_LIMITS.maxResponseBytes}).
 * Each refusal is LIMIT_EXCEEDED with HTTP 400 (or BAD_USER_INPUT for a variable).
 */
export function requestLimitPlugins(): Plugin[] {
  // armor throws its own uncoded error after calling onReject: throwing ours first gives the code.
  const onReject = [(_: unknown, error: GraphQLError) => {
    throw limitError(error.message);
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
      return ({ result }) => {
        if (result.length > 0) return;
        const found = rootFields(params.documentAST, undefined);
        if (!found) return;
        const cost = found.names.reduce((sum, name) => sum + (FIELD_WEIGHTS[name] ?? 1), 0);
        // Thrown, not set as a validation result: yoga answers validation errors 200 under application/json.
        if (cost > REQUEST_LIMITS.maxWeightedCost) {
          throw limitError(`the request's weighted cost ${cost} is above ${REQUEST_LIMITS.maxWeightedCost} (tryCode costs ${FIELD_WEIGHTS.tryCode}, ingestSpans ${FIELD_WEIGHTS.ingestSpans}, other fields 1): split it`);
        }
      };
    },
    onExecute({ args, setResultAndStopExecution }) {
      const checked = checkReadCost(args);
      if (checked?.error) {
        setResultAndStopExecution({ errors: [checked.error] });
        return;
      }
      if (checked) readCosts.set(args.contextValue as object, checked.cost);
      return {
        onExecuteDone({ result, setResult }) {
          // A stream (@defer, SSE) is not measured here: its parts are bounded by the read cost.
          if (!("data" in result || "errors" in result)) return;
          const bytes = answerBytes(result);
          if (bytes > REQUEST_LIMITS.maxResponseBytes) {
            setResult({
              errors: [toGraphQLError(limitError(`the answer would be ${bytes} bytes; at most ${REQUEST_LIMITS.maxResponseBytes}: ask for smaller pages or fewer fields (the large JSON values: input, output, document)`))],
            });
          }
        },
      };
    },
    onSubscribe({ args, setResultAndStopExecution }) {
      // A subscription's events are answers too: refused whole before it starts when they could cost too much.
      const checked = checkReadCost(args);
      if (checked?.error) setResultAndStopExecution({ errors: [checked.error] });
      else if (checked) readCosts.set(args.contextValue as object, checked.cost);
    },
  };
  return [guards, armor];
}

/** The read cost of the request a GraphQL context belongs to, once checked (see {@link readCostPoints}). */
const readCosts = new WeakMap<object, number>();

/**
 * What one read takes from the workspace's read budget: 1 point per started 1,000 of its read
 * cost, at least 1 — after GitHub's GraphQL rate-limit score (the nodes a query can return / 100,
 * at least 1), scaled to this cost: a simple query takes 1 point, a page of 100 experiment items
 * with their runs and scores 13.
 */
export function readCostPoints(cost: number): number {
  return Math.max(1, Math.ceil(cost / 1000));
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
  /** Read points per minute: queries and subscriptions, each taking {@link readCostPoints} of its read cost. */
  readsPerMinute: number;
}

export { rateLimiter, takeRate, type RateBudget } from "../lib/rate-limits.js";

/** The LIMIT_EXCEEDED answer (HTTP 429, `Retry-After`) of a spent budget. */
function rateLimited(what: string, limiter: RateLimiterRedis, rejection: RateLimiterRes): GraphQLError {
  return toGraphQLError(new RateLimitedError(`rate limit: at most ${limiter.points} ${what} per minute per workspace; retry in ${Math.ceil(rejection.msBeforeNext / 1000)} s`, rejection.msBeforeNext / 1000));
}

/**
 * Per-workspace rate limits, counted in Redis (shared by every API process; an in-memory limiter
 * stands in while Redis is down): `ingestSpans`, `tryCode` and every other mutation each have
 * their own budget per minute, every root field (alias) counting once; queries and subscriptions
 * take {@link readCostPoints} of their read cost from the `read` budget (a subscription once, when
 * it starts). Past a budget the request does nothing and gets HTTP 429, LIMIT_EXCEEDED and
 * `Retry-After`. Runs after {@link requestLimitPlugins} (a refused request takes nothing).
 */
export function rateLimitPlugin(redis: Redis, limits: RateLimits, prefix: string): Plugin {
  const make = (name: RateBudget, points: number) => rateLimiter(redis, name, points, prefix);
  const limiters = { ingestSpans: make("ingest", limits.ingestPerMinute), tryCode: make("try-code", limits.tryCodePerMinute), mutation: make("mutation", limits.mutationsPerMinute) };
  const reads = make("read", limits.readsPerMinute);
  const budgetOf = (field: string): keyof typeof limiters => (field === "ingestSpans" || field === "tryCode" ? field : "mutation");
  /** Takes a read's points. @returns the 429 error when the budget is spent. */
  const takeRead = async (args: ExecutionArgs, workspaceId: string): Promise<GraphQLError | null> => {
    if (!reads) return null;
    const cost = readCosts.get(args.contextValue as object) ?? 0;
    try {
      await reads.consume(workspaceId, readCostPoints(cost));
      return null;
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      return rateLimited("read points (1 per started 1,000 of a read's cost)", reads, rejection);
    }
  };
  const workspaceOf = (args: ExecutionArgs) => (args.contextValue as { principal?: { workspaceId?: string } }).principal?.workspaceId;
  return {
    async onSubscribe({ args, setResultAndStopExecution }) {
      const workspaceId = workspaceOf(args);
      const refused = workspaceId ? await takeRead(args, workspaceId) : null;
      if (refused) setResultAndStopExecution({ errors: [refused] });
    },
    async onExecute({ args, setResultAndStopExecution }) {
      const found = rootFields(args.document, args.operationName);
      const workspaceId = workspaceOf(args);
      if (!found || !workspaceId) return;
      if (found.kind !== "mutation") {
        const refused = await takeRead(args, workspaceId);
        if (refused) setResultAndStopExecution({ errors: [refused] });
        return;
      }
      const counts = new Map<keyof typeof limiters, number>();
      for (const name of found.names) counts.set(budgetOf(name), (counts.get(budgetOf(name)) ?? 0) + 1);
      for (const [budget, points] of counts) {
        const limiter = limiters[budget];
        if (!limiter) continue;
        try {
          await limiter.consume(workspaceId, points);
        } catch (rejection) {
          if (!(rejection instanceof RateLimiterRes)) throw rejection;
          setResultAndStopExecution({ errors: [rateLimited(budget === "mutation" ? "mutations" : `${budget} calls`, limiter, rejection)] });
          return;
        }
      }
    },
  };
}
