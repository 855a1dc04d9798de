import { GraphQLError } from "graphql";
import type { Plugin } from "graphql-yoga";

/** Names of the settings page that the API spells differently: what to use instead. */
const RENAMED_FIELDS: Record<string, string> = {
  type: 'there is no "type" field: every template is code (send sourceCode and params)',
  evaluatorId: 'an evaluator names its template with "templateId" (a global ID) or "templateName"',
};

/** `Field "x" is not defined by type "T"` (graphql-js, for an unknown key of an input object). */
const UNKNOWN_FIELD = /Field "([^"]+)" is not defined by type "([^"]+)"/;
/** `Variable "$input" got invalid value … at "input.a.b"` (graphql-js, variables of the wrong shape). */
const VARIABLE_PATH = /Variable "\$([^"]+)" got invalid value[^;]*?(?: at "([^"]+)")?;/;

/**
 * A request of the wrong shape (an unknown input field, a value of the wrong type in the
 * variables or the query) as BAD_USER_INPUT with `issues: [{path, message}]`, like every other
 * refused input, and for a field the settings page names differently, the name to use. graphql-js
 * reports these without `extensions.code`.
 */
export function toInputError(error: GraphQLError): GraphQLError {
  if (error.extensions?.code) return error;
  const unknown = UNKNOWN_FIELD.exec(error.message);
  const variable = VARIABLE_PATH.exec(error.message);
  if (!unknown && !variable) return error;
  const field = unknown?.[1];
  const base = variable ? [variable[1], variable[2]].filter(Boolean).join(".").replace(/^([^.]+)\.\1\./, "$1.") : "";
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

/** Envelop plugin: maps validation and variable-coercion errors with {@link toInputError}. */
export function inputErrorsPlugin(): Plugin {
  const mapResult = (result: { errors?: readonly GraphQLError[] }, set: (errors: GraphQLError[]) => void) => {
    if (result.errors?.length) set(result.errors.map(toInputError));
  };
  return {
    onValidate() {
      return ({ result, setResult }) => {
        if (result.length) setResult(result.map((e) => (e instanceof GraphQLError ? toInputError(e) : e)) as GraphQLError[]);
      };
    },
    onExecute() {
      return {
        onExecuteDone({ result, setResult }) {
          if ("errors" in result && result.errors?.length && !("data" in result && result.data)) {
            mapResult(result, (errors) => setResult({ ...result, errors }));
          }
        },
      };
    },
  };
}
