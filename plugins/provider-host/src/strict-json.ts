/** Small checks for the strict JSON documents of the provider interface (unknown fields are faults). */

export type JsonObject = Record<string, unknown>

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** Throws `fail(reason)` unless `value` is an object whose keys are all in `required` or `optional`. */
export function expectObject(
  value: unknown,
  what: string,
  required: readonly string[],
  optional: readonly string[] = [],
): JsonObject {
  if (!isObject(value)) throw new TypeError(`${what} must be a JSON object`)
  for (const key of Object.keys(value)) {
    if (!required.includes(key) && !optional.includes(key))
      throw new TypeError(`${what} has an unknown field '${key}'`)
  }
  for (const key of required) {
    if (!(key in value)) throw new TypeError(`${what} is missing '${key}'`)
  }
  return value
}

export function expectString(value: unknown, what: string, options: { nonBlank?: boolean } = {}): string {
  if (typeof value !== 'string') throw new TypeError(`${what} must be a string`)
  if (options.nonBlank === true && value.trim() === '') throw new TypeError(`${what} must not be blank`)
  return value
}

export function expectBoolean(value: unknown, what: string): boolean {
  if (typeof value !== 'boolean') throw new TypeError(`${what} must be a boolean`)
  return value
}

export function expectPositiveInteger(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0)
    throw new TypeError(`${what} must be an integer > 0`)
  return value
}

export function expectArray(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) throw new TypeError(`${what} must be an array`)
  return value
}

export interface Capability {
  name: string
  version: string
}

export function expectCapabilities(value: unknown, what: string): Capability[] {
  return expectArray(value, what).map((item, i) => {
    const c = expectObject(item, `${what}[${i}]`, ['name', 'version'])
    return {
      name: expectString(c.name, `${what}[${i}].name`, { nonBlank: true }),
      version: expectString(c.version, `${what}[${i}].version`, { nonBlank: true }),
    }
  })
}

/** Parses JSON text, reporting a syntax fault as a TypeError naming `what`. */
export function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    throw new TypeError(`${what} is not valid JSON`)
  }
}
