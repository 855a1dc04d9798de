import { z } from "zod";
import type { InputIssue } from "../../lib/errors.js";
import { typeError } from "../../lib/validation.js";
import { isPythonKeyword } from "../../lib/python-keywords.js";

/** Largest library source accepted, in bytes of UTF-8 (256 KiB), as for templates. */
export const MAX_LIBRARY_SOURCE_BYTES = 256 * 1024;

/** Longest library name. */
export const MAX_LIBRARY_NAME_LENGTH = 64;

/**
 * The name rule of a shared library: the module name user code imports (`shared.<name>`).
 * Lower-case ASCII letters, digits and underscores, starting with a letter (PEP 8's module names:
 * a valid Python identifier, and no two libraries differ only in case), at most 64 characters,
 * and not a Python keyword (`import shared.class` would not parse).
 */
export const LIBRARY_NAME_PATTERN = /^[a-z][a-z0-9_]*$/;

/** True when `name` satisfies the library name rule ({@link LIBRARY_NAME_PATTERN}, length, no keyword). */
export function isLibraryName(name: string): boolean {
  return name.length <= MAX_LIBRARY_NAME_LENGTH && LIBRARY_NAME_PATTERN.test(name) && !isPythonKeyword(name);
}

/** A shared library's name: see {@link LIBRARY_NAME_PATTERN}. */
export const libraryNameSchema = z
  .string({ error: typeError("a string") })
  .trim()
  .min(1, { message: "must not be empty", abort: true })
  .max(MAX_LIBRARY_NAME_LENGTH, { message: `must be at most ${MAX_LIBRARY_NAME_LENGTH} characters`, abort: true })
  .regex(LIBRARY_NAME_PATTERN, "must be a Python module name: lower-case letters, digits and underscores, starting with a letter (e.g. acme_policy)")
  .refine((name) => !isPythonKeyword(name), { message: "must not be a Python keyword" });

/** A library's description: free text, at most 2,000 characters. */
export const libraryDescriptionSchema = z.string({ error: typeError("a string") }).max(2000, "must be at most 2000 characters");

/** The note of a version or of a deprecation: why it changed, at most 2,000 characters. */
export const libraryNoteSchema = z.string({ error: typeError("a string") }).trim().max(2000, "must be at most 2000 characters");

/** The source of a library version: at most 256 KiB of UTF-8, not blank; its syntax is checked with Python. */
export const librarySourceSchema = z
  .string({ error: typeError("a string") })
  .refine((s) => s.trim() !== "", { message: "must not be empty" })
  .refine((s) => Buffer.byteLength(s, "utf8") <= MAX_LIBRARY_SOURCE_BYTES, {
    message: `must be at most 256 KiB (${MAX_LIBRARY_SOURCE_BYTES} bytes of UTF-8)`,
  });

/** The input of publishSharedLibraryVersion. The library is created on its first publish. */
export const publishInputSchema = z.object({
  name: libraryNameSchema.describe("The library's module name; the first publish creates the library."),
  sourceCode: librarySourceSchema.describe("The Python source of the new version (parsed, never run, on publish); at most 256 KiB."),
  note: libraryNoteSchema.optional().describe("What changed in this version."),
  description: libraryDescriptionSchema.optional().describe("Sets the library's description."),
});

/** A publishSharedLibraryVersion input before parsing. */
export type PublishInput = z.input<typeof publishInputSchema>;

/** The input of deprecateSharedLibrary: `deprecated: false` lifts a deprecation. */
export const deprecateInputSchema = z.object({
  name: libraryNameSchema,
  note: libraryNoteSchema.optional().describe("Why, and what to use instead."),
  deprecated: z.boolean({ error: typeError("a boolean") }).optional().describe("false lifts the deprecation (default true)."),
});

/** A deprecateSharedLibrary input before parsing. */
export type DeprecateInput = z.input<typeof deprecateInputSchema>;

/**
 * Parses the shared-library pins of a template version: an object of library name → version
 * number (a positive integer); null or undefined mean no pins. Reports every problem at once,
 * each at `libraryPins.<name>` (or `libraryPins` when it is not an object).
 * @returns the pins (null when invalid) and the issues.
 */
export function parseLibraryPins(value: unknown, field = "libraryPins"): { pins: Record<string, number> | null; issues: InputIssue[] } {
  if (value === null || value === undefined) return { pins: {}, issues: [] };
  if (typeof value !== "object" || Array.isArray(value)) {
    return { pins: null, issues: [{ path: field, message: "must be an object of shared library name → version number" }] };
  }
  const issues: InputIssue[] = [];
  const pins: Record<string, number> = {};
  for (const [name, version] of Object.entries(value as Record<string, unknown>)) {
    const path = `${field}.${name}`;
    if (!isLibraryName(name)) issues.push({ path, message: "is not a shared library name (lower-case letters, digits and underscores)" });
    else if (typeof version !== "number" || !Number.isInteger(version) || version < 1) issues.push({ path, message: "must be a version number (a whole number, 1 or more)" });
    else pins[name] = version;
  }
  return { pins: issues.length ? null : pins, issues };
}
