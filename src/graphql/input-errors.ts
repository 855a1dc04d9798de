import { GraphQLEnumType, GraphQLError, type GraphQLSchema } from "graphql";
import type { Plugin } from "graphql-yoga";
import { RENAMED_FIELDS } from "../lib/renamed-fields.js";
import { BadUserInputError } from "../lib/errors.js";
import { argumentError } from "./argument-errors.js";
import { badIdArguments } from "./id-arguments.js";


/** `Field "x" is not defined by type "T"` (graphql-js, for an unknown key of an input object). */
const UNKNOWN_FIELD = /Field "([^"]+)" is not defined by type "([^"]+)"/;
/** `Variable "$input" got invalid value … at "input.a.b"` (graphql-js, variables of the wrong shape). */
const VARIABLE_PATH = /Variable "\$([^"]+)" got invalid value[^;]*?(?: at "([^"]+)")?;/;

/** graphql-js on a value outside an enum: a quoted or unknown literal, or an unknown value in the variables. */
const ENUM_VALUE = /Enum "(\w+)" cannot represent non-(?:enum|string) value: ("?)|Value "[^"]*" does not exist in "(\w+)" enum/;

/**
 * The field an enum literal was given for (`isolation` in `{isolation: "paranoid"}`): the name
 * before the value in the document. Empty when it cannot be told.
 */
function literalField(error: GraphQLError): string {
  const start = error.nodes?.[0]?.loc?.start;
  const body = error.source?.body ?? error.nodes?.[0]?.loc?.source.body;
  if (start === undefined || body === undefined) return "";
  return /(\w+)\s*:\s*$/.exec(body.slice(0, start))?.[1] ?? "";
}

/** An enum value outside its list as BAD_USER_INPUT naming the field and the values it takes. */
function enumError(error: GraphQLError, match: RegExpExecArray, variablePath: string | null, schema?: GraphQLSchema): GraphQLError {
  const type = schema?.getType(match[1] ?? match[3] ?? "");
  const values = type instanceof GraphQLEnumType ? type.getValues().map((v) => v.name) : [];
  const quoted = match[2] === '"';
  const path = variablePath ?? literalField(error);
  const message = `must be one of ${values.join(", ")}${quoted ? ` (an enum value is written without quotes in a query: ${path || "field"}: ${values[0] ?? "value"})` : ""}`;
  return new GraphQLError(`${path ? `${path}: ` : ""}${message}`, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions: { ...error.extensions, code: "BAD_USER_INPUT", issues: [{ path, message }] },
  });
}

/**
 * A request of the wrong shape (an unknown input field, a value of the wrong type in the
 * variables or the query) as BAD_USER_INPUT with `issues: [{path, message}]`, like every other
 * refused input, and for a field the settings page names differently, the name to use. graphql-js
 * reports these without `extensions.code`.
 */
export function toInputError(error: GraphQLError, schema?: GraphQLSchema): GraphQLError {
  if (error.extensions?.code) return error;
  const unknown = UNKNOWN_FIELD.exec(error.message);
  const variable = VARIABLE_PATH.exec(error.message);
  const base = variable ? [variable[1], variable[2]].filter(Boolean).join(".").replace(/^([^.]+)\.\1\./, "$1.") : "";
  const enumValue = ENUM_VALUE.exec(error.message);
  if (enumValue && !unknown) return enumError(error, enumValue, variable ? base : null, schema);
  if (!unknown && !variable) return error;
  const field = unknown?.[1];
  const path = [base || undefined, field].filter(Boolean).join(".") || (field ?? "");
  const hint = field && RENAMED_FIELDS[field] ? `: ${RENAMED_FIELDS[field]}` : "";
  const message = `${error.message}${hint}`;
  return new GraphQLError(message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions: { ...error.extensions, code: "BAD_USER_INPUT", issues: [{ path, message: field ? `is not a field of ${unknown![2]}${hint}` : error.message }] },
  });
}

/** The issue message of a malformed or wrong-type global id argument (null for any other error). */
function idErrorMessage(error: GraphQLError): string | null {
  if (error.path?.length !== 1) return null;
  const bad = argumentError(error.originalError, "id");
  const issue = bad?.issues[0];
  return issue && /^is not (a valid id of this API|an id of a )/.test(issue.message) ? issue.message : null;
}

/**
 * A refused global id at the argument that held it (`spanId`, `input.spanId`), when it can be
 * told, instead of at the field (`explainMatch`); the value is not repeated.
 */
function nameIdArgument(error: GraphQLError, message: string, paths: string[]): GraphQLError {
  if (!paths.length) return error;
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: new BadUserInputError(paths.map((path) => ({ path, message }))),
  });
}

/** Envelop plugin: maps validation and variable-coercion errors with {@link toInputError}. */
export function inputErrorsPlugin(): Plugin {
  const mapResult = (result: { errors?: readonly GraphQLError[] }, schema: GraphQLSchema, set: (errors: GraphQLError[]) => void) => {
    if (result.errors?.length) set(result.errors.map((e) => toInputError(e, schema)));
  };
  return {
    onValidate({ params }) {
      return ({ result, setResult }) => {
        if (result.length) setResult(result.map((e) => (e instanceof GraphQLError ? toInputError(e, params.schema) : e)) as GraphQLError[]);
      };
    },
    onExecute({ args }) {
      return {
        onExecuteDone({ result, setResult }) {
          if ("errors" in result && result.errors?.length && !("data" in result && result.data)) {
            mapResult(result, args.schema, (errors) => setResult({ ...result, errors }));
          }
          if ("errors" in result && result.errors?.some((e) => idErrorMessage(e) !== null)) {
            const name = (e: GraphQLError) => {
              const message = idErrorMessage(e);
              return message === null ? e : nameIdArgument(e, message, badIdArguments(args.schema, args.document, args.variableValues, String(e.path![0]), args.operationName));
            };
            setResult({ ...result, errors: result.errors.map(name) });
          }
        },
      };
    },
  };
}
