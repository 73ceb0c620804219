/** CI check (DECISIONS): our validator and the OASIS schemas agree on every ATT&CK and OASIS example object. */
import { validateObject } from '@service/core/stix'
import { describe, expect, it } from 'vitest'
import { DATA_BUNDLES, loadOracle, readObjects, stixDataPresent } from './oasis.oracle.js'

const ours = (o: unknown) => validateObject(o, 0).filter((i) => i.severity === 'error')

/** Mutations both validators must refuse (each breaks a schema rule, not only a semantic one). */
const set =
  (key: string, value: unknown, onlyDomain = false) =>
  (o: Record<string, unknown>) => {
    if (!onlyDomain || 'created' in o) o[key] = value
  }
const MUTATIONS: [string, (o: Record<string, unknown>) => void][] = [
  [
    'no id',
    (o) => {
      delete o.id
    },
  ],
  [
    'no type',
    (o) => {
      delete o.type
    },
  ],
  ['bad id', set('id', 'not-an-id')],
  ['bad created', set('created', '2020-01-01', true)],
  ['created without millis', set('created', '2020-01-01T00:00:00Z', true)],
  ['confidence 101', set('confidence', 101, true)],
  ['empty labels', set('labels', [])],
  ['external ref without source', set('external_references', [{ url: 'https://example.com' }])],
  ['marking ref not an id', set('object_marking_refs', ['tlp-white'])],
  ['null property', set('x_custom_thing', null)],
]

describe.skipIf(!stixDataPresent)('OASIS oracle agreement (SHARED_DIR data)', () => {
  const oracle = stixDataPresent ? loadOracle() : null
  for (const file of DATA_BUNDLES) {
    it(`agrees on every object of ${file}`, () => {
      const disagreements: string[] = []
      for (const object of readObjects(file)) {
        const a = oracle?.valid(object) ?? false
        const b = ours(object).length === 0
        if (a !== b) disagreements.push(`${object.id}: oasis=${a} ours=${b} ${JSON.stringify(ours(object))}`)
      }
      expect(disagreements.slice(0, 5)).toEqual([])
    })
  }
  it('agrees on mutated objects (both refuse)', () => {
    const disagreements: string[] = []
    for (const file of DATA_BUNDLES) {
      const objects = readObjects(file)
      // The OASIS marking-definition schema is laxer than the specification (no millisecond rule, open
      // properties), where we follow the specification: markings are left out of the refusal check.
      const sample = objects.filter((o, i) => i % 25 === 0 && o.type !== 'marking-definition')
      for (const original of sample) {
        for (const [name, mutate] of MUTATIONS) {
          const o = structuredClone(original)
          mutate(o)
          if (JSON.stringify(o) === JSON.stringify(original)) continue
          const a = oracle?.valid(o) ?? false
          const b = ours(o).length === 0
          if (a !== b) disagreements.push(`${name} ${original.id}: oasis=${a} ours=${b}`)
        }
      }
    }
    expect(disagreements.slice(0, 10)).toEqual([])
  })
})
