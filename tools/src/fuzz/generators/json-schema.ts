import * as fc from 'fast-check'

/**
 * Values from a JSON Schema: the subset the product's TypeBox schemas use (type, const, enum, pattern,
 * min/max, items/minItems, properties/required, anyOf). The output follows the schema; the targets
 * mutate it afterwards to leave it.
 */
type Schema = Record<string, unknown>

export function fromSchema(schema: Schema): fc.Arbitrary<unknown> {
  if ('const' in schema) return fc.constant(schema.const)
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]))
  if (Array.isArray(schema.anyOf)) return fc.oneof(...(schema.anyOf as Schema[]).map(fromSchema))
  switch (schema.type) {
    case 'string':
      return stringFrom(schema)
    case 'integer':
      return fc.integer({ min: num(schema.minimum, -1000), max: num(schema.maximum, 1000) })
    case 'number':
      return fc.double({ min: num(schema.minimum, -1e6), max: num(schema.maximum, 1e6), noNaN: true })
    case 'boolean':
      return fc.boolean()
    case 'array':
      return fc.array(fromSchema((schema.items as Schema | undefined) ?? {}), {
        minLength: num(schema.minItems, 0),
        maxLength: Math.max(num(schema.minItems, 0), 3),
      })
    case 'object':
      return objectFrom(schema)
    default:
      return fc.jsonValue({ maxDepth: 2 })
  }
}

const num = (value: unknown, fallback: number): number => (typeof value === 'number' ? value : fallback)

/** Building an arbitrary from a pattern is costly and the schemas repeat a few patterns hundreds of times. */
const byPattern = new Map<string, fc.Arbitrary<string>>()

function stringFrom(schema: Schema): fc.Arbitrary<string> {
  if (typeof schema.pattern === 'string') {
    let arbitrary = byPattern.get(schema.pattern)
    if (arbitrary === undefined) {
      arbitrary = fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= 300)
      byPattern.set(schema.pattern, arbitrary)
    }
    return arbitrary
  }
  return fc.string({
    minLength: num(schema.minLength, 0),
    maxLength: Math.min(num(schema.maxLength, 24), 24),
  })
}

function objectFrom(schema: Schema): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties as Record<string, Schema> | undefined) ?? {}
  const required = (schema.required as string[] | undefined) ?? []
  const known = fc.record(
    Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, fromSchema(value)])),
    { requiredKeys: required },
  )
  const minProperties = num(schema.minProperties, 0)
  const extra =
    Object.keys(properties).length === 0 || minProperties > 0
      ? fc.dictionary(fc.constantFrom('x_fuzz', 'x_custom_key', 'extra'), fc.string({ maxLength: 8 }), {
          minKeys: minProperties,
          maxKeys: Math.max(minProperties, 2),
        })
      : fc.constant({})
  return fc.tuple(known, extra).map(([a, b]) => ({ ...b, ...a }))
}
