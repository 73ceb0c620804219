/**
 * STIX 2.1 validation: the product's own schema per type (./schemas) plus the rules a schema cannot say
 * (./rules), then bundle-level checks — duplicate ids, references that resolve, relationship endpoints of
 * sensible types. Used by the validate route, by import (nothing invalid is stored) and by export.
 */
import { issue, requiredCode, type StixIssue } from './issues.js'
import {
  collectRefs,
  endpoints,
  isRelationshipObject,
  META_TYPES,
  PREDEFINED_MARKINGS,
  SCO_TYPES,
} from './mapping.js'
import { ruleIssues } from './rules.js'
import { IDENTIFIER_PATTERN, TIMESTAMP_PATTERN } from './schemas/common.js'
import { schemaErrors } from './schemas/index.js'

type Obj = Record<string, unknown>
const IDENTIFIER = new RegExp(IDENTIFIER_PATTERN)
const _TIMESTAMP = new RegExp(TIMESTAMP_PATTERN)

const fieldOf = (pointer: string): string =>
  pointer
    .split('/')
    .slice(1)
    .map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`))
    .join('')
    .replace(/^\./, '')

/** Issues of one object on its own (schema, id form, timestamps, co-occurrence rules). */
export function validateObject(object: unknown, index: number): StixIssue[] {
  if (object === null || typeof object !== 'object' || Array.isArray(object))
    return [issue('STIX_OBJECT_INVALID', 'a STIX object must be a JSON object', `object[${index}]`, null)]
  const o = object as Obj
  const id = typeof o.id === 'string' && o.id !== '' ? o.id : null
  const at = id ?? `object[${index}]`
  const type = typeof o.type === 'string' ? o.type : ''
  const out: StixIssue[] = []
  if (type === '') out.push(issue('STIX_TYPE_REQUIRED', 'the object has no type', at, 'type'))
  if (id === null) out.push(issue('STIX_ID_REQUIRED', 'the object has no id', at, 'id'))
  else if (!IDENTIFIER.test(id) || (type !== '' && !id.startsWith(`${type}--`)))
    out.push(issue('STIX_ID_INVALID', `id must be ${type || '<type>'}--<uuid>`, at, 'id'))
  if (type === '') return out
  for (const e of schemaErrors(type, o)) {
    if (e.keyword === 'required') {
      for (const field of (e.params.requiredProperties as string[] | undefined) ?? []) {
        if ((field === 'id' || field === 'type') && e.instancePath === '') continue // reported above
        const path = e.instancePath === '' ? field : `${fieldOf(e.instancePath)}.${field}`
        out.push(
          issue(
            e.instancePath === '' ? requiredCode(type, field) : 'STIX_PROPERTY_REQUIRED',
            `${path} is required`,
            at,
            path,
          ),
        )
      }
      continue
    }
    const field = fieldOf(e.instancePath) || null
    if (field === 'id') continue // STIX_ID_INVALID above
    const isTime = e.keyword === 'pattern' && String(e.params.pattern ?? '').includes('T([01][0-9]')
    const code =
      field === 'spec_version'
        ? 'STIX_SPEC_VERSION_INVALID'
        : isTime
          ? 'STIX_TIMESTAMP_INVALID'
          : 'STIX_SCHEMA_VIOLATION'
    out.push(issue(code, `${field ?? type}: ${e.message}`, at, field))
  }
  const domain = !SCO_TYPES.has(type) && (META_TYPES.has(type) || 'created' in o)
  out.push(...ruleIssues(o, type, at, domain && type !== 'marking-definition'))
  return dedupe(out)
}

function dedupe(issues: StixIssue[]): StixIssue[] {
  const seen = new Set<string>()
  return issues.filter((i) => {
    const key = `${i.code}|${i.field}|${i.message}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/** Endpoint types a relationship can sensibly join: SROs and meta objects are never endpoints. */
const NOT_AN_ENDPOINT = new Set([
  'relationship',
  'sighting',
  'marking-definition',
  'language-content',
  'extension-definition',
])

export interface BundleCheckOptions {
  /** Ids known outside the bundle (the graph); a reference to one of them resolves. */
  knownIds?: (id: string) => boolean
}

/** Every issue of a list of objects: per object, then duplicates and references across them. */
export function validateObjects(objects: readonly unknown[], options: BundleCheckOptions = {}): StixIssue[] {
  const out: StixIssue[] = []
  const byId = new Map<string, Obj>()
  objects.forEach((object, i) => {
    out.push(...validateObject(object, i))
    const o = object as Obj
    if (o === null || typeof o !== 'object' || typeof o.id !== 'string') return
    const before = byId.get(o.id)
    if (before !== undefined && before.modified === o.modified)
      out.push(issue('STIX_DUPLICATE_ID', 'the same id and version appear twice', o.id, 'id', 'warning'))
    byId.set(o.id, o)
  })
  const known = options.knownIds ?? (() => false)
  const resolves = (ref: string) => byId.has(ref) || PREDEFINED_MARKINGS.has(ref) || known(ref)
  for (const o of byId.values()) {
    // An edge endpoint that resolves nowhere aborts an import: an error; other references are warnings.
    const { source, target } = isRelationshipObject(o)
      ? endpoints(o)
      : { source: undefined, target: undefined }
    for (const ref of collectRefs(o)) {
      if (resolves(ref)) continue
      const endpoint = ref === source || ref === target
      out.push(
        issue(
          'STIX_REFERENCE_UNRESOLVED',
          `reference ${ref} does not resolve`,
          o.id as string,
          null,
          endpoint ? 'error' : 'warning',
        ),
      )
    }
    if (o.type === 'relationship') {
      for (const field of ['source_ref', 'target_ref']) {
        const ref = o[field]
        const type = typeof ref === 'string' ? ref.split('--')[0] : undefined
        if (type !== undefined && NOT_AN_ENDPOINT.has(type))
          out.push(issue('STIX_REL_ENDPOINT_TYPE', `${field} cannot be a ${type}`, o.id as string, field))
      }
    }
  }
  return out
}
