/**
 * The optional evidence envelope of an import (reference schema StixEvidenceEnvelopeV1): evidence records
 * (source identity, SHA-256 of the source, bounded excerpt, page/paragraph/table-cell/byte-range locator)
 * and per-object annotations (evidence refs, 0..100 confidence, status candidate). Checked whole before
 * anything is written; each fault is a 400 with the FACTS §5 code.
 */
import { EngineError, type ErrorCode } from '../errors.js'
import { MAX_NESTING, nestingDepth } from './bundle.js'

export interface EvidenceRecord {
  id: string
  source_id: string
  content_sha256: string
  payload: string
  locator: Record<string, unknown>
  source_url?: string
  extractor_id?: string
  model_version?: string
  language?: string
}

export interface Annotation {
  evidence_refs?: string[]
  confidence?: number
  status?: 'candidate'
}

export interface EvidenceEnvelope {
  records: EvidenceRecord[]
  annotations: Map<string, Annotation>
}

const bad = (code: ErrorCode, message: string) => new EngineError(code, message)
const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v)
const nonBlank = (v: unknown): v is string => typeof v === 'string' && v.trim() !== ''
const bounded = (v: unknown, min: number) =>
  Number.isInteger(v) && (v as number) >= min && (v as number) <= 1_000_000

const LOCATOR_FIELDS: Record<string, { required: string[]; optional: string[] }> = {
  page: { required: ['page'], optional: [] },
  paragraph: { required: ['paragraph'], optional: ['page'] },
  table_cell: { required: ['table', 'row', 'column'], optional: ['page'] },
  byte_range: { required: ['start', 'end'], optional: [] },
}

function checkLocator(locator: unknown, id: string): void {
  const fail = (why: string) => bad('INVALID_EVIDENCE_LOCATOR', `evidence ${id}: locator ${why}`)
  if (!isObject(locator) || typeof locator.type !== 'string') throw fail('must be an object with a type')
  const spec = LOCATOR_FIELDS[locator.type]
  if (spec === undefined)
    throw fail(`type ${JSON.stringify(locator.type)} is not page, paragraph, table_cell or byte_range`)
  for (const key of spec.required) if (locator[key] === undefined) throw fail(`needs ${key}`)
  for (const key of [...spec.required, ...spec.optional]) {
    const value = locator[key]
    if (value === undefined) continue
    const ok =
      locator.type === 'byte_range'
        ? Number.isInteger(value) && (value as number) >= (key === 'end' ? 1 : 0)
        : bounded(value, 1)
    if (!ok) throw fail(`${key} is out of range`)
  }
  if (locator.type === 'byte_range' && (locator.end as number) <= (locator.start as number))
    throw fail('end must be greater than start')
}

function checkRecord(raw: unknown, seen: Set<string>): EvidenceRecord {
  if (!isObject(raw)) throw bad('INVALID_EVIDENCE_RECORD', 'each evidence record must be an object')
  if (!nonBlank(raw.id)) throw bad('INVALID_EVIDENCE_ID', 'evidence id must be a non-blank string')
  const id = raw.id
  if (seen.has(id)) throw bad('DUPLICATE_EVIDENCE_ID', `evidence id ${id} appears twice`)
  seen.add(id)
  if (typeof raw.content_sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(raw.content_sha256))
    throw bad('INVALID_EVIDENCE_DIGEST', `evidence ${id}: content_sha256 must be 64 lowercase hex digits`)
  checkLocator(raw.locator, id)
  if (!nonBlank(raw.source_id)) throw bad('INVALID_EVIDENCE_RECORD', `evidence ${id}: source_id is required`)
  if (typeof raw.payload !== 'string' || raw.payload === '')
    throw bad('INVALID_EVIDENCE_RECORD', `evidence ${id}: payload must be a non-empty string`)
  for (const key of ['source_url', 'extractor_id', 'model_version', 'language']) {
    if (raw[key] !== undefined && typeof raw[key] !== 'string')
      throw bad('INVALID_EVIDENCE_RECORD', `evidence ${id}: ${key} must be a string`)
  }
  if (typeof raw.source_url === 'string' && !URL.canParse(raw.source_url))
    throw bad('INVALID_EVIDENCE_RECORD', `evidence ${id}: source_url must be a URI`)
  return raw as unknown as EvidenceRecord
}

function checkAnnotation(target: string, raw: unknown): Annotation {
  if (!isObject(raw)) throw bad('INVALID_EVIDENCE_RECORD', `annotation of ${target} must be an object`)
  if (raw.status !== undefined && raw.status !== 'candidate')
    throw bad('INVALID_IMPORT_STATUS', `annotation of ${target}: import can only assert status candidate`)
  if (
    raw.confidence !== undefined &&
    !(typeof raw.confidence === 'number' && raw.confidence >= 0 && raw.confidence <= 100)
  )
    throw bad('INVALID_STIX_CONFIDENCE', `annotation of ${target}: confidence must be a number in 0..100`)
  const refs = raw.evidence_refs
  if (refs !== undefined) {
    if (!Array.isArray(refs) || refs.some((r) => typeof r !== 'string') || new Set(refs).size !== refs.length)
      throw bad('INVALID_EVIDENCE_RECORD', `annotation of ${target}: evidence_refs must be unique strings`)
  }
  return raw as Annotation
}

/**
 * Parses and checks an envelope against the bundle's ids; `knownEvidence` says whether an evidence id not in
 * this envelope is already stored (a ref to neither is EVIDENCE_NOT_FOUND).
 */
export function parseEvidence(
  raw: unknown,
  bundleIds: ReadonlySet<string>,
  knownEvidence: (id: string) => boolean,
): EvidenceEnvelope | null {
  if (raw === undefined || raw === null) return null
  if (!isObject(raw)) throw bad('TYPED_STIX_IMPORT_FAILED', 'evidence must be an object')
  if (nestingDepth(raw, MAX_NESTING + 2) > MAX_NESTING + 2)
    throw bad('TYPED_STIX_IMPORT_FAILED', `evidence nests deeper than ${MAX_NESTING + 2} levels`)
  if (raw.schema_version !== '1.0')
    throw bad('UNSUPPORTED_EVIDENCE_SCHEMA_VERSION', 'evidence schema_version must be "1.0"')
  if (!Array.isArray(raw.records) || !isObject(raw.annotations))
    throw bad('TYPED_STIX_IMPORT_FAILED', 'evidence needs records (array) and annotations (object)')
  const seen = new Set<string>()
  const records = raw.records.map((r) => checkRecord(r, seen))
  const annotations = new Map<string, Annotation>()
  for (const [target, value] of Object.entries(raw.annotations)) {
    if (!bundleIds.has(target))
      throw bad('ANNOTATION_TARGET_NOT_FOUND', `annotation target ${target} is not in the bundle`)
    const annotation = checkAnnotation(target, value)
    for (const ref of annotation.evidence_refs ?? []) {
      if (!seen.has(ref) && !knownEvidence(ref))
        throw bad('EVIDENCE_NOT_FOUND', `evidence ${ref} (annotation of ${target}) does not exist`)
    }
    annotations.set(target, annotation)
  }
  return { records, annotations }
}
