import { BadUserInputError } from "../lib/errors.js";

const WRONG_TYPE_ID = /^ID: [\s\S]* is not of type: ([\w, ]+)$/;

/**
 * The caller's bad argument behind a Pothos validation error (a malformed global id, an id of
 * the wrong type, a cursor this API never gave out, connection arguments that do not go
 * together) as BAD_USER_INPUT, without repeating what was sent. Null for any other error.
 * @param at - the response path of the field, named in the issue when the argument is not
 */
export function argumentError(original: unknown, at: string | undefined): BadUserInputError | null {
  // By name: Pothos is loaded both as ESM and CommonJS, so instanceof may not see its class.
  if (!(original instanceof Error) || original.name !== "PothosValidationError") return null;
  const { message } = original;
  const where = at || "id";
  if (/^Invalid global ID/.test(message)) return new BadUserInputError([{ path: where, message: "is not a valid id of this API (ids come from its answers)" }]);
  const wrongType = WRONG_TYPE_ID.exec(message);
  if (wrongType) return new BadUserInputError([{ path: where, message: `is not an id of a ${wrongType[1]}` }]);
  if (/cursor|base64/i.test(message)) return new BadUserInputError([{ path: at ? `${at}.after/before` : "after/before", message: "is not a cursor of this connection (cursors come from its pageInfo and edges)" }]);
  const argument = /^Arguments? "(\w+)"/.exec(message);
  if (argument) return new BadUserInputError([{ path: argument[1]!, message: message.replace(/^Arguments? "\w+" /, "") }]);
  return null;
}
