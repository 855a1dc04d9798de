import type { z } from "zod";

/** The zod internals read here: a wrapper's inner type (optional, nullable, default, readonly) or a pipe's input (a transform). */
interface Wrapped {
  description?: string;
  _zod?: { def?: { innerType?: unknown; in?: unknown } };
}

/**
 * The description of a zod schema: its own `.describe()` text, else the text of the schema it
 * wraps (`.optional()`, `.nullish()`, `.default()`, the input of a `.transform()`), so a field
 * described before or after its modifiers reads the same.
 */
export function descriptionOf(schema: z.ZodType): string | undefined {
  let current = schema as unknown as Wrapped | undefined;
  for (let depth = 0; current && depth < 16; depth++) {
    if (current.description) return current.description;
    const def = current._zod?.def;
    current = (def?.innerType ?? def?.in) as Wrapped | undefined;
  }
  return undefined;
}

/**
 * The descriptions of a zod object schema's fields for Pothos input fields and arguments, so an
 * input's text is declared once (in the module's schema, where the MCP tools' JSON Schema and the
 * CLI read it too): `const d = describedBy(schema); t.string({ ...d("name") })`.
 * @throws Error at schema build time for a field the schema lacks or that has no description.
 */
export function describedBy<Shape extends z.ZodRawShape>(schema: { shape: Shape }) {
  return (field: keyof Shape & string): { description: string } => {
    const fieldSchema = schema.shape[field] as z.ZodType | undefined;
    const description = fieldSchema && descriptionOf(fieldSchema);
    if (!description) throw new Error(`input field "${field}" has no .describe() in its zod schema`);
    return { description };
  };
}
