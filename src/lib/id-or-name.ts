import { BadUserInputError } from "./errors.js";
import { lookupNameProblem } from "./text-rules.js";

/**
 * Refuses an empty or whitespace-only name given to look a record up, as BAD_USER_INPUT at
 * `path` ("must not be empty"), instead of looking it up and answering NOT_FOUND.
 * @returns the name.
 */
export function requireLookupName(name: string, path: string): string {
  const problem = lookupNameProblem(name);
  if (problem) throw new BadUserInputError([{ path, message: problem }]);
  return name;
}

/** A lookup by id or by name, as a client gives it (either may be absent or null). */
export interface IdOrName {
  id?: string | null;
  name?: string | null;
}

/**
 * The one key of a lookup by id or name (an empty string counts as absent): every transport's
 * "give id or name, not both". A name that is only whitespace, or an empty name without an id, is
 * refused as empty (never looked up, so never NOT_FOUND).
 * @param fields - the input's names of the two keys (`id`/`name`, `templateId`/`templateName`).
 * @param optional - neither key is allowed (the lookup is skipped: `undefined`).
 * @throws BadUserInputError at `fields.id` when both are given, or neither and not optional; at
 *   `fields.name` for a blank name.
 */
export function idOrName(by: IdOrName, fields: { id: string; name: string } = { id: "id", name: "name" }, optional = false): { id?: string; name?: string } | undefined {
  const id = by.id || undefined;
  if (id === undefined && typeof by.name === "string") requireLookupName(by.name, fields.name);
  const name = by.name && by.name.trim() !== "" ? by.name : undefined;
  if (id !== undefined && name !== undefined) throw new BadUserInputError([{ path: fields.id, message: `give ${fields.id} or ${fields.name}, not both` }]);
  if (id === undefined && name === undefined) {
    if (optional) return undefined;
    throw new BadUserInputError([{ path: fields.id, message: `give ${fields.id} or ${fields.name}, not both` }]);
  }
  return id !== undefined ? { id } : { name };
}
