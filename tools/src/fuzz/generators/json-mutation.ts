import * as fc from 'fast-check'

/** Structural mutations of a JSON value: a key removed, a value replaced or retyped, a string stretched. */
export type JsonMutation =
  | { op: 'remove'; at: number }
  | { op: 'replace'; at: number; value: unknown }
  | { op: 'stretch'; at: number; times: number }
  | { op: 'add'; at: number; key: string; value: unknown }
  | { op: 'nest'; at: number; depth: number }

const EDGE_VALUES: unknown[] = [
  null,
  '',
  ' ',
  0,
  -1,
  1.5,
  101,
  2 ** 53,
  -(2 ** 63),
  1e308,
  true,
  [],
  {},
  [[[]]],
  { type: 'bundle' },
  'indicator--00000000-0000-4000-8000-000000000000',
  '2016-13-45T25:61:61.000Z',
  '\u0000',
  '🙂',
  'x'.repeat(5000),
  // JSON.parse gives ±Infinity for 1e999; Object.prototype names reach plain-object lookups.
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  'constructor',
  '__proto__',
  'toString',
]
const KEYS = ['__proto__', 'constructor', 'toString', 'x_fuzz', 'type', 'id', 'source_ref', '0', '']
const value = fc.oneof(fc.constantFrom(...EDGE_VALUES), fc.jsonValue({ maxDepth: 3 }))

export const jsonMutation: fc.Arbitrary<JsonMutation> = fc.oneof(
  fc.record({ op: fc.constant('remove' as const), at: fc.nat() }),
  fc.record({
    op: fc.constant('replace' as const),
    at: fc.nat(),
    value,
  }),
  fc.record({ op: fc.constant('add' as const), at: fc.nat(), key: fc.constantFrom(...KEYS), value }),
  // Deep nesting: recursive walkers must meet a bound, not the stack.
  fc.record({
    op: fc.constant('nest' as const),
    at: fc.nat(),
    depth: fc.oneof(fc.nat(70), fc.integer({ min: 500, max: 1200 })),
  }),
  fc.record({ op: fc.constant('stretch' as const), at: fc.nat(), times: fc.integer({ min: 2, max: 200 }) }),
)

type Slot = { parent: Record<string, unknown> | unknown[]; key: string | number }

/** Every key and index in `value`, walked without recursion (the 'nest' mutation makes values deep). */
function slots(value: unknown): Slot[] {
  const into: Slot[] = []
  const stack = [value]
  while (stack.length > 0) {
    const item = stack.pop()
    if (item === null || typeof item !== 'object') continue
    const parent = item as Record<string, unknown> | unknown[]
    for (const [key, child] of Object.entries(parent)) {
      into.push({ parent, key: Array.isArray(parent) ? Number(key) : key })
      stack.push(child)
    }
  }
  return into
}

/** Applies the mutations to a deep copy of `value`. */
export function mutateJson<T>(value: T, mutations: readonly JsonMutation[]): T {
  const copy = structuredClone(value)
  // One deep nesting per value: enough to pass every bound, and JSON.stringify stays within the stack.
  let nestedAlready = false
  // One stretch per value: a stretched array repeats one element by reference, so a second stretch inside it
  // multiplies (200 × 200 × 200 elements from three), and serializing that held a test for minutes.
  let stretchedAlready = false
  for (const m of mutations) {
    const all = slots(copy)
    if (all.length === 0) break
    const { parent, key } = all[m.at % all.length] as Slot
    const record = parent as Record<string | number, unknown>
    if (m.op === 'add') {
      const target = record[key]
      if (target !== null && typeof target === 'object' && !Array.isArray(target))
        Object.defineProperty(target, m.key, {
          value: structuredClone(m.value),
          enumerable: true,
          writable: true,
          configurable: true,
        })
    } else if (m.op === 'nest') {
      if (nestedAlready) continue
      nestedAlready = true
      let nested = record[key]
      for (let i = 0; i < m.depth; i++) nested = i % 2 === 0 ? [nested] : { x: nested }
      record[key] = nested
    } else if (m.op === 'remove') {
      if (Array.isArray(parent)) parent.splice(key as number, 1)
      else delete record[key]
    } else if (m.op === 'replace') record[key] = structuredClone(m.value)
    else {
      if (stretchedAlready) continue
      stretchedAlready = true
      const current = record[key]
      if (typeof current === 'string') record[key] = current.repeat(m.times).slice(0, 20_000)
      else if (Array.isArray(current)) record[key] = Array.from({ length: m.times }, () => current[0])
    }
  }
  return copy
}
