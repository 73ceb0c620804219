/**
 * Test oracle only: the OASIS STIX 2.1 JSON Schemas (from SHARED_DIR), compiled with ajv. The product never
 * reads them (DECISIONS "Run-time data versus test data"); tests compare our own validator against them.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..')
export const sharedDir = resolve(repoRoot, process.env.SHARED_DIR ?? '../shared')
export const stixDataDir = join(sharedDir, 'data', 'stix')
export const stixDataPresent = existsSync(join(stixDataDir, 'oasis-schemas', 'common', 'core.json'))

const BASE = 'http://raw.githubusercontent.com/oasis-open/cti-stix2-json-schemas/stix2.1/schemas/'

export interface OasisOracle {
  /** True when the object passes the OASIS schema of its type (core schemas for custom types). */
  valid(object: unknown): boolean
  errors(object: unknown): string
}

export function loadOracle(): OasisOracle {
  // The OASIS regexes use \p-less PCRE syntax that unicode mode refuses; idn-hostname is not in ajv-formats.
  const ajv = new Ajv2020({ strict: false, allErrors: false, unicodeRegExp: false })
  addFormats.default(ajv)
  ajv.addFormat('idn-hostname', true)
  ajv.addFormat('idn-email', true)
  const root = join(stixDataDir, 'oasis-schemas')
  const byType = new Map<string, string>()
  for (const dir of ['common', 'sdos', 'sros', 'observables']) {
    for (const file of readdirSync(join(root, dir))) {
      if (!file.endsWith('.json')) continue
      const schema = JSON.parse(readFileSync(join(root, dir, file), 'utf8')) as { $id: string }
      ajv.addSchema(schema)
      if (dir !== 'common' || file === 'language-content.json' || file === 'marking-definition.json')
        byType.set(file.replace(/\.json$/, ''), schema.$id)
    }
  }
  byType.set('extension-definition', `${BASE}common/extension-definition.json`)
  const compiled = new Map<string, ValidateFunction>()
  const get = (id: string) => {
    let fn = compiled.get(id)
    if (fn === undefined) {
      fn = ajv.getSchema(id) ?? ajv.compile({ $ref: id })
      compiled.set(id, fn)
    }
    return fn
  }
  // The bundle schema's oneOf(core, cyber-observable-core) rejects every custom SDO (it matches both), so a
  // custom object is judged by the core it claims: created/modified make it an SDO, otherwise an SCO.
  const customSdo = ajv.compile({ $ref: `${BASE}common/core.json` })
  const customSco = ajv.compile({ $ref: `${BASE}common/cyber-observable-core.json` })
  const pick = (object: unknown): ValidateFunction => {
    const type = (object as { type?: unknown } | null)?.type
    const id = typeof type === 'string' ? byType.get(type) : undefined
    if (id !== undefined) return get(id)
    return object !== null && typeof object === 'object' && 'created' in object ? customSdo : customSco
  }
  return {
    valid: (object) => pick(object)(object) === true,
    errors: (object) => {
      const fn = pick(object)
      fn(object)
      return ajv.errorsText(fn.errors)
    },
  }
}

/** The objects of a data file: a bundle's objects, or the single object some OASIS examples hold. */
export function readObjects(relative: string): Record<string, unknown>[] {
  const data = JSON.parse(readFileSync(join(stixDataDir, relative), 'utf8')) as Record<string, unknown>
  return data.type === 'bundle' ? (data.objects as Record<string, unknown>[]) : [data]
}

export const DATA_BUNDLES = [
  'attack/ics-attack-18.1.json',
  'attack/mobile-attack-17.1.json',
  'oasis-examples/indicator-for-c2-ip-address.json',
  'oasis-examples/indicator-to-campaign-relationship.json',
  'oasis-examples/indicators-for-C2-with-COA.json',
  'oasis-examples/infrastructure.json',
  'oasis-examples/interop-objectmarking-test.json',
  'oasis-examples/malicious-email-indicator-with-attachment.json',
  'oasis-examples/threat-reports/apt1.json',
  'oasis-examples/threat-reports/poisonivy.json',
]
