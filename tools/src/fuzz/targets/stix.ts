import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type Engine, openEngine } from '@service/core'
import { exportStix, importStix, STIX_SCHEMAS, validateStix } from '@service/core/stix'
import * as fc from 'fast-check'
import { filesUnder, sharedDir } from '../corpus.js'
import { jsonMutation, mutateJson } from '../generators/json-mutation.js'
import { fromSchema } from '../generators/json-schema.js'
import { engineFailureOnly, graphDigest } from '../invariants.js'
import { type FuzzTarget, invariant } from '../target.js'

type StixObject = Record<string, unknown>

/** Objects of the ATT&CK and OASIS example bundles (from SHARED_DIR), by id. */
function exampleObjects(): StixObject[] {
  const root = join(sharedDir(), 'data', 'stix')
  const files = [
    ...filesUnder(join(root, 'oasis-examples'), '.json'),
    ...filesUnder(join(root, 'attack'), '.json'),
  ]
  const objects: StixObject[] = []
  for (const file of files) {
    try {
      const bundle = JSON.parse(readFileSync(file, 'utf8')) as { objects?: unknown }
      if (Array.isArray(bundle.objects)) objects.push(...(bundle.objects as StixObject[]))
    } catch {
      // not a bundle: skipped
    }
  }
  return objects
}

const refsOf = (object: StixObject): string[] =>
  Object.entries(object).flatMap(([key, value]) =>
    key.endsWith('_ref') && typeof value === 'string'
      ? [value]
      : key.endsWith('_refs') && Array.isArray(value)
        ? value.filter((v): v is string => typeof v === 'string')
        : [],
  )

/** Picks examples and, mostly, the objects they reference, so many bundles import whole. */
function exampleSelection(objects: StixObject[]): fc.Arbitrary<StixObject[]> {
  const byId = new Map(objects.map((o) => [String(o.id), o]))
  return fc
    .tuple(fc.array(fc.nat({ max: objects.length - 1 }), { minLength: 1, maxLength: 6 }), fc.boolean())
    .map(([picks, close]) => {
      const chosen = new Map<string, StixObject>()
      for (const i of picks) {
        const object = objects[i] as StixObject
        chosen.set(String(object.id), object)
        if (close)
          for (const ref of refsOf(object)) if (byId.has(ref)) chosen.set(ref, byId.get(ref) as StixObject)
      }
      return [...chosen.values()]
    })
}

/** Objects generated from the product's own schemas, some references rewired to objects of the bundle. */
const schemaObjects = (): fc.Arbitrary<StixObject[]> =>
  fc
    .tuple(
      fc.array(fc.oneof(...[...STIX_SCHEMAS.values()].map((s) => fromSchema(s as Record<string, unknown>))), {
        minLength: 1,
        maxLength: 4,
      }),
      fc.array(fc.nat(), { maxLength: 6 }),
    )
    .map(([objects, rewire]) => {
      const list = objects as StixObject[]
      const ids = list.map((o) => o.id)
      rewire.forEach((n, i) => {
        const object = list[i % list.length] as StixObject
        const key = Object.keys(object).find((k) => k.endsWith('_ref'))
        if (key !== undefined) object[key] = ids[n % ids.length]
      })
      return list
    })

export interface StixCase {
  bundle: unknown
}

function stixCases(examples: StixObject[]): fc.Arbitrary<StixCase> {
  const generated = schemaObjects()
  const objects = examples.length > 0 ? fc.oneof(generated, exampleSelection(examples)) : generated
  const bundle = fc
    .tuple(objects, fc.array(jsonMutation, { maxLength: 3 }))
    .map(([list, mutations]) =>
      mutateJson(
        { type: 'bundle', id: 'bundle--6f1b1b7e-2d4c-4b8e-9b1a-3f0a4c6d7e8f', objects: list },
        mutations,
      ),
    )
  return fc.record({ bundle: fc.oneof({ arbitrary: bundle, weight: 9 }, fc.jsonValue({ maxDepth: 3 })) })
}

const fresh = (): Promise<Engine> => openEngine({ storage: { mode: 'ephemeral' } })

/**
 * Import + validation (bundle and graph mode) + export. Invariants: only EngineErrors; an import that
 * throws or aborts changes nothing; export is deterministic (twice the same text), strict mode refuses or
 * agrees with permissive, and what was exported validates and re-imports to the very same objects.
 */
export async function checkStixCase({ bundle }: StixCase): Promise<void> {
  const engines: Engine[] = []
  const open = async () => {
    const engine = await fresh()
    engines.push(engine)
    return engine
  }
  try {
    const validated = await engineFailureOnly(async () => validateStix(await open(), { bundle }))
    if (validated !== undefined)
      invariant(typeof validated.valid === 'boolean', 'validation without a verdict')
    const engine = await open()
    const before = await graphDigest(engine)
    const report = await engineFailureOnly(() => importStix(engine, { bundle }))
    if (report === undefined || report.sequence === null) {
      invariant((await graphDigest(engine)) === before, 'a rejected or aborted import changed the graph')
      if (report === undefined) return
    }
    invariant(report.result.outcomes.length >= report.result.processed_objects, 'outcomes missing')
    const first = await engineFailureOnly(() => exportStix(engine, { mode: 'permissive' }))
    const second = await engineFailureOnly(() => exportStix(engine, { mode: 'permissive' }))
    invariant(first?.text === second?.text, 'export is not deterministic')
    if (first === undefined) return
    // Strict mode either refuses with an EngineError or exports exactly what permissive mode does.
    const strict = await engineFailureOnly(() => exportStix(engine, { mode: 'strict' }))
    if (strict !== undefined) {
      invariant(
        JSON.stringify(strict.bundle.objects) === JSON.stringify(first.bundle.objects),
        'strict export differs from permissive',
      )
    }
    const graph = await engineFailureOnly(() => validateStix(engine, { source: 'graph' }))
    if (graph !== undefined) invariant(typeof graph.valid === 'boolean', 'graph validation without a verdict')
    const exported = first.bundle
    if (!Array.isArray(exported.objects) || exported.objects.length === 0) return
    const check = await engineFailureOnly(async () => validateStix(await open(), { bundle: exported }))
    invariant(check?.valid === true, `exported bundle does not validate: ${JSON.stringify(check?.issues)}`)
    const other = await open()
    await engineFailureOnly(() => importStix(other, { bundle: exported }))
    const again = await engineFailureOnly(() => exportStix(other, { mode: 'permissive' }))
    // Exclusions differ by design (the re-import holds only what was exported); the objects may not.
    const objects = (value: typeof first | undefined) => JSON.stringify(value?.bundle.objects)
    invariant(objects(again) === objects(first), 'export → import → export changed the objects')
  } finally {
    for (const engine of engines) await engine.close()
  }
}

export const stixTarget: FuzzTarget<StixCase> = {
  name: 'stix',
  description:
    'STIX bundles generated from the product TypeBox schemas and selections of ATT&CK/OASIS examples, mutated; validate, import, export, re-import',
  async prepare() {
    const examples = exampleObjects()
    return {
      arbitrary: stixCases(examples),
      check: checkStixCase,
      corpus: `${STIX_SCHEMAS.size} schemas + ${examples.length} ATT&CK/OASIS example objects${examples.length === 0 ? ' (none under SHARED_DIR)' : ''}`,
    }
  },
}
