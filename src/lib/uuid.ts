import { z } from "zod";

const uuid = z.uuid();

/** Stands in for a malformed id in a lookup: a UUID that matches no record. */
export const NIL_UUID = "00000000-0000-0000-0000-000000000000";

/** True for a well-formed UUID; anything else cannot name a record (NOT_FOUND, not a database error). */
export function isUuid(id: string): boolean {
  return uuid.safeParse(id).success;
}

/** A UUID from a decoded global id, or {@link NIL_UUID} (matches nothing) when it is malformed. */
export function uuidOrNil(id: string): string {
  return isUuid(id) ? id : NIL_UUID;
}
