import { defaultFieldResolver, getNamedType, isObjectType, type GraphQLSchema } from "graphql";
import { BadUserInputError } from "../lib/errors.js";

/** Page sizes of a connection: `first`/`last` default and maximum (rows). */
export interface PageSize {
  default: number;
  max: number;
}

/** The page size of every connection unless its field says otherwise (`extensions: { pageSize }`). */
export const PAGE_SIZE: PageSize = { default: 20, max: 100 };

/** The `extensions` of a connection field with its own page size (pass the same to its resolver). */
export function pageSizeExtension(size: PageSize): { pageSize: PageSize } {
  return { pageSize: size };
}

/**
 * Every connection (a field returning a `…Connection` with `first`/`last` arguments) states its
 * maximum page size in the schema and refuses a larger `first` or `last`, or a negative one, with
 * BAD_USER_INPUT naming the argument and the maximum — never a page silently cut short. Changes
 * the schema in place (argument descriptions, resolvers) and returns it.
 */
export function applyPageSizeLimits(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith("__")) continue;
    for (const field of Object.values(type.getFields())) {
      if (!getNamedType(field.type).name.endsWith("Connection")) continue;
      const sized = field.args.filter((arg) => arg.name === "first" || arg.name === "last");
      if (sized.length === 0) continue;
      const size = (field.extensions as { pageSize?: PageSize }).pageSize ?? PAGE_SIZE;
      for (const arg of sized) arg.description = `At most ${size.max} (default ${size.default}); more is refused with BAD_USER_INPUT.`;
      const resolve = field.resolve ?? defaultFieldResolver;
      field.resolve = (source, args, context, info) => {
        const issues = sized
          .map((arg) => ({ name: arg.name, value: (args as Record<string, unknown>)[arg.name] }))
          .filter((a): a is { name: string; value: number } => typeof a.value === "number" && (a.value < 0 || a.value > size.max))
          .map((a) => ({ path: a.name, message: a.value < 0 ? "must not be negative" : `must be at most ${size.max} (the maximum page size of ${type.name}.${field.name}): page with after/before` }));
        if (issues.length) throw new BadUserInputError(issues);
        return resolve(source, args, context, info);
      };
    }
  }
  return schema;
}
