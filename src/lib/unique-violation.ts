import { BadUserInputError } from "./errors.js";

/** True for Prisma's unique-constraint violation (P2002). */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "P2002";
}

/**
 * Runs a write and turns a unique violation of the live name into BAD_USER_INPUT at `name`
 * (the pre-check can race with a concurrent save; the unique index decides).
 */
export async function withUniqueName<T>(what: string, name: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error) && name !== undefined) {
      throw new BadUserInputError([{ path: "name", message: `${what} named "${name}" already exists in this workspace` }]);
    }
    throw error;
  }
}
