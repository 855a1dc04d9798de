import { z } from "zod";

/**
 * `z.record(key, value)` that keeps every own key as an ordinary key, `__proto__` included: zod's
 * record skips a `__proto__` key (it builds its output on a plain object, where the assignment
 * would set the prototype), so an OTLP attribute or a rule's `attributeEquals` key of that name
 * vanished without a word. The output has a null prototype, so `__proto__`, `constructor` and
 * `toString` are data; JSON.stringify and Prisma store it as sent, and JSON.parse gives the key
 * back as an own property.
 * Validation, messages and paths are the record's own (the `__proto__` entry is checked by the
 * same key and value schemas, at path `__proto__`); its JSON Schema (MCP tool inputs) is the
 * record's too.
 */
export function ownKeysRecord<V extends z.ZodType>(key: z.ZodType<string>, value: V, options: { error: string }) {
  const shape = z.record(key, value, { error: options.error });
  const schema = z.unknown().transform((input, ctx) => {
    const checked = shape.safeParse(input);
    const issues = checked.success ? [] : [...checked.error.issues];
    const out = Object.create(null) as Record<string, z.output<V>>;
    if (checked.success) Object.assign(out, checked.data);
    if (typeof input === "object" && input !== null && !Array.isArray(input) && Object.hasOwn(input, "__proto__")) {
      const name = "__proto__";
      const keyChecked = key.safeParse(name);
      const valueChecked = value.safeParse((input as Record<string, unknown>)[name]);
      if (!keyChecked.success) issues.push(...keyChecked.error.issues.map((i) => ({ ...i, path: [name] })));
      if (!valueChecked.success) issues.push(...valueChecked.error.issues.map((i) => ({ ...i, path: [name, ...i.path] })));
      else out[name] = valueChecked.data as z.output<V>; // an own key: the object has no prototype
    }
    for (const issue of issues) ctx.addIssue({ code: "custom", path: [...issue.path], message: issue.message });
    return issues.length ? z.NEVER : out;
  });
  // The JSON Schema of the input is the record's (a transform has none of its own).
  (schema._zod as { toJSONSchema?: () => unknown }).toJSONSchema = () => {
    const { $schema: _, ...json } = z.toJSONSchema(shape, { io: "input" }) as Record<string, unknown>;
    return json;
  };
  return schema;
}
