import { BadUserInputError } from "./errors.js";

/** A lookup by id or by name, as a client gives it (either may be absent or null). */
export interface IdOrName {
  id?: string | null;
  name?: string | null;
}

/**
 * The one key of a lookup by id or name (an empty string counts as absent): every transport's
 * "give id or name, not both".
 * @param fields - the input's names of the two keys (`id`/`name`, `templateId`/`templateName`).
 * @param optional - neither key is allowed (the lookup is skipped: `undefined`).
 * @throws BadUserInputError at `fields.id` when both are given, or neither and not optional.
 */
export function idOrName(by: IdOrName, fields: { id: string; name: string } = { id: "id", name: "name" }, optional = false): { id?: string; name?: string } | undefined {
  const id = by.id || undefined;
  const name = by.name || undefined;
  if (id !== undefined && name !== undefined) throw new BadUserInputError([{ path: fields.id, message: `give ${fields.id} or ${fields.name}, not both` }]);
  if (id === undefined && name === undefined) {
    if (optional) return undefined;
    throw new BadUserInputError([{ path: fields.id, message: `give ${fields.id} or ${fields.name}, not both` }]);
  }
  return id !== undefined ? { id } : { name };
}
