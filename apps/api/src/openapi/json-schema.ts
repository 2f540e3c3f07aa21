/**
 * A small `FromSchema`: the TypeScript type a JSON Schema (2020-12, the subset the response
 * schemas use) describes. Response schemas are written once as `as const` constants; presenters
 * return `FromSchema<typeof X>`, so a field added to or dropped from either side fails `tsc`.
 *
 * Supported: `const`, `enum`, `type` (one or a list, e.g. `['string', 'null']`), `properties` +
 * `required`, `additionalProperties` (a schema: a map), `items`, `oneOf`/`anyOf`.
 */
export type JsonSchema = { readonly [keyword: string]: unknown };

type Primitive<T> = T extends 'string'
  ? string
  : T extends 'integer' | 'number'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : never;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

type ObjectOf<S> = S extends { readonly properties: infer P }
  ? Simplify<
      { -readonly [K in keyof P as K extends RequiredKeys<S> ? K : never]: FromSchema<P[K]> } & {
        -readonly [K in keyof P as K extends RequiredKeys<S> ? never : K]?: FromSchema<P[K]>;
      }
    >
  : S extends { readonly additionalProperties: infer A }
    ? A extends JsonSchema
      ? Record<string, FromSchema<A>>
      : Record<string, unknown>
    : Record<string, unknown>;

type RequiredKeys<S> = S extends { readonly required: readonly (infer R)[] } ? R : never;

type OfType<S, T> = T extends 'object'
  ? ObjectOf<S>
  : T extends 'array'
    ? S extends { readonly items: infer I }
      ? FromSchema<I>[]
      : unknown[]
    : Primitive<T>;

export type FromSchema<S> = S extends { readonly const: infer C }
  ? C
  : S extends { readonly enum: readonly (infer E)[] }
    ? E
    : S extends { readonly oneOf: readonly (infer O)[] }
      ? FromSchema<O>
      : S extends { readonly anyOf: readonly (infer O)[] }
        ? FromSchema<O>
        : S extends { readonly type: readonly (infer T)[] }
          ? T extends unknown
            ? OfType<S, T>
            : never
          : S extends { readonly type: infer T }
            ? OfType<S, T>
            : unknown;

/**
 * Schemas registered here become `components.schemas` entries; wherever the same object appears
 * inside another schema, the document has a `$ref` to it instead of a copy.
 */
export const SCHEMA_NAMES = new Map<object, string>();

export function component<S extends JsonSchema>(name: string, schema: S): S {
  SCHEMA_NAMES.set(schema, name);
  return schema;
}

/** Copies of a named schema with a description of their own: published as `{$ref, description}`. */
export const NOTED_SCHEMAS = new Map<object, string>();

/** The schema with a description; a named schema stays a reference to its component. */
export function note<const S extends JsonSchema>(description: string, schema: S): S & { readonly description: string } {
  const out = { ...schema, description };
  const name = SCHEMA_NAMES.get(schema);
  if (name) NOTED_SCHEMAS.set(out, name);
  return out;
}
