/** Bundle-shape checks shared by import and validation (FACTS §5 400 codes). */
import { EngineError, type ErrorCode } from '../errors.js'
import { canonicalize } from './canonical.js'
import { isRelationshipObject } from './mapping.js'

export type StixObject = Record<string, unknown>

export interface ParsedRecord {
  id: string
  type: string
  object: StixObject
  /** RFC 8785 text of the object exactly as given: stored, compared, and re-emitted by export. */
  raw: string
  relationship: boolean
  /** A byte-identical earlier copy in the same bundle. */
  repeat: boolean
}

const bad = (code: ErrorCode, message: string) => new EngineError(code, message)
const isObject = (v: unknown): v is StixObject => v !== null && typeof v === 'object' && !Array.isArray(v)
const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null)

/** `type` must be "bundle" (any case) and `objects` an array (non-empty unless `allowEmpty`). */
export function bundleObjects(bundle: unknown, allowEmpty = false): unknown[] {
  if (bundle === undefined) throw bad('INVALID_STIX_BUNDLE', 'bundle is required')
  if (!isObject(bundle) || typeof bundle.type !== 'string' || bundle.type.toLowerCase() !== 'bundle')
    throw bad('INVALID_STIX_BUNDLE', 'bundle.type must be "bundle"')
  if (!Array.isArray(bundle.objects) || (!allowEmpty && bundle.objects.length === 0))
    throw bad('INVALID_STIX_BUNDLE', `bundle.objects must be ${allowEmpty ? 'an' : 'a non-empty'} array`)
  bundle.objects.forEach((object, i) => {
    if (nestingDepth(object, MAX_NESTING) > MAX_NESTING)
      throw bad('INVALID_STIX_OBJECT', `object[${i}] nests deeper than ${MAX_NESTING} levels`)
  })
  return bundle.objects
}

/**
 * Real STIX objects nest a few levels (extensions, hashes, kill-chain phases); the walkers that follow
 * (validation, reference collection, canonical JSON) recurse, so a deeper object stops here instead of
 * overflowing the stack (a fuzz finding).
 */
export const MAX_NESTING = 64

/** Depth of arrays and objects in `value`, counted without recursion; stops counting past `limit`. */
export function nestingDepth(value: unknown, limit: number): number {
  let deepest = 0
  const stack: [unknown, number][] = [[value, 0]]
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number]
    if (item === null || typeof item !== 'object') continue
    if (depth + 1 > deepest) deepest = depth + 1
    if (deepest > limit) return deepest
    for (const child of Object.values(item)) stack.push([child, depth + 1])
  }
  return deepest
}

/** STIX confidence is 0..100; the graph keeps 0..1. */
export function confidenceOf(object: StixObject, id: string): number | undefined {
  const c = object.confidence
  if (c === undefined) return undefined
  if (typeof c !== 'number' || !Number.isFinite(c) || c < 0 || c > 100)
    throw bad('INVALID_STIX_CONFIDENCE', `${id}: confidence must be a number in 0..100`)
  return c / 100
}

/** JSON.parse turns 1e999 into Infinity, which has no canonical JSON form: the object is invalid. */
function canonicalText(object: StixObject, i: number): string {
  try {
    return canonicalize(object)
  } catch (error) {
    if (!(error instanceof TypeError)) throw error
    throw bad('INVALID_STIX_OBJECT', `object[${i}] holds a value JSON cannot represent (${error.message})`)
  }
}

/** Type and identity of every object, conflicting repeats refused, canonical text computed once. */
export function parseRecords(objects: readonly unknown[]): ParsedRecord[] {
  const byId = new Map<string, string>()
  return objects.map((object, i) => {
    if (!isObject(object)) throw bad('INVALID_STIX_OBJECT', `object[${i}] is not an object`)
    const type = text(object.type) ?? text(object.entity_type)
    const id = text(object.id) ?? text(object.internal_id)
    if (type === null) throw bad('INVALID_STIX_OBJECT', `object[${i}] has no type`)
    if (id === null) throw bad('INVALID_STIX_OBJECT', `object[${i}] has no id`)
    confidenceOf(object, id)
    const raw = canonicalText(object, i)
    const before = byId.get(id)
    if (before !== undefined && before !== raw)
      throw bad('CONFLICTING_STIX_ID', `${id} appears twice with different content`)
    byId.set(id, raw)
    return { id, type, object, raw, relationship: isRelationshipObject(object), repeat: before !== undefined }
  })
}
