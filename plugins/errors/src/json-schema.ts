import { type Static, type TSchema, Type } from 'typebox'

/**
 * Schema builders that serialise without a runtime validator. fast-json-stringify resolves every `anyOf`
 * (TypeBox's `Union`) by running Ajv against the value on each response, a measurable cost on hot routes
 * (/health has four such fields) and one that grows with the value for a union over a large object.
 * A type array and an `enum` say the same in JSON Schema and OpenAPI 3.1 and serialise directly.
 */

/** `T | null` as `type: [T's type, 'null']`; T must name a single JSON type. A named T is inlined. */
export function Nullable<T extends TSchema>(schema: T) {
  const {
    type,
    enum: members,
    const: constant,
    $id: _id,
    ...rest
  } = schema as TSchema & {
    type?: unknown
    enum?: unknown[]
    const?: unknown
    $id?: string
  }
  if (typeof type !== 'string') throw new TypeError('Nullable needs a schema with a single JSON type')
  const values = members ?? (constant === undefined ? undefined : [constant])
  return Type.Unsafe<Static<T> | null>({
    ...rest,
    type: [type, 'null'],
    ...(values === undefined ? {} : { enum: [...values, null] }),
  })
}

/** One of the given strings, as `{type: 'string', enum}`. */
export function StringEnum<const T extends readonly string[]>(values: T, options: object = {}) {
  return Type.Unsafe<T[number]>({ ...options, type: 'string', enum: [...values] })
}
