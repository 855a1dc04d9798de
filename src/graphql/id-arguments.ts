import { decodeGlobalID } from "@pothos/plugin-relay";
import {
  getNamedType,
  getNullableType,
  isInputObjectType,
  isListType,
  Kind,
  type DocumentNode,
  type FieldNode,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from "graphql";
import { getArgumentValues } from "graphql";

/**
 * True when `value` is not a global id this API could have given out (for one of `types`, when
 * known). A number is never one (GraphQL's ID takes `123`, and it reaches the resolver as a
 * string that decodes to nothing).
 */
function badId(value: unknown, types: readonly string[] | null): boolean {
  if (typeof value === "number" || typeof value === "bigint") return true;
  if (typeof value !== "string") return false;
  try {
    const { typename } = decodeGlobalID(value);
    return types !== null && types.length > 0 && !types.includes(typename);
  } catch {
    return true;
  }
}

/** The type names a Pothos globalID argument or input field is for (null: any). */
function idTypesOf(extensions: Readonly<Record<string, unknown>> | null | undefined): string[] | null {
  const forTypes = extensions?.relayGlobalIDFor as { typename: string }[] | null | undefined;
  return Array.isArray(forTypes) ? forTypes.map((t) => t.typename) : null;
}

/** The paths (`spanId`, `input.spanId`, `ids[2]`) of the ID values under `value` that are bad. */
function badIdPaths(type: GraphQLInputType, value: unknown, path: string, extensions: Readonly<Record<string, unknown>> | null | undefined, out: string[]): void {
  if (value === null || value === undefined) return;
  const inner = getNullableType(type);
  if (isListType(inner)) {
    if (Array.isArray(value)) value.forEach((v, i) => badIdPaths(inner.ofType as GraphQLInputType, v, `${path}[${i}]`, extensions, out));
    return;
  }
  if (isInputObjectType(inner)) {
    if (typeof value !== "object") return;
    for (const field of Object.values(inner.getFields())) {
      badIdPaths(field.type, (value as Record<string, unknown>)[field.name], `${path}.${field.name}`, field.extensions, out);
    }
    return;
  }
  if (getNamedType(inner).name === "ID" && extensions?.isRelayGlobalID && badId(value, idTypesOf(extensions))) out.push(path);
}

/**
 * The arguments of a root field that hold a malformed global id or an id of the wrong type, by
 * path (`explainMatch(spanId: "tr1:sp1")` → `spanId`; `tryCode(input: {spanId: …})` →
 * `input.spanId`), from the document and the variables. Empty when none can be told.
 * @param responseKey - the field's alias or name (the error's path[0])
 */
export function badIdArguments(schema: GraphQLSchema, document: DocumentNode, variableValues: Record<string, unknown> | null | undefined, responseKey: string, operationName?: string | null): string[] {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const operation = operations.find((o) => !operationName || o.name?.value === operationName) ?? operations[0];
  if (!operation) return [];
  const root = operation.operation === "mutation" ? schema.getMutationType() : operation.operation === "subscription" ? schema.getSubscriptionType() : schema.getQueryType();
  const node = operation.selectionSet.selections.find((s): s is FieldNode => s.kind === Kind.FIELD && (s.alias?.value ?? s.name.value) === responseKey);
  const field = node && root?.getFields()[node.name.value];
  if (!node || !field) return [];
  let args: Record<string, unknown>;
  try {
    args = getArgumentValues(field, node, (variableValues ?? {}) as Record<string, unknown>);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const arg of field.args) badIdPaths(arg.type, args[arg.name], arg.name, arg.extensions, out);
  return out;
}
