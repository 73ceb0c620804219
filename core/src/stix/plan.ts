/**
 * The export plan: which STIX records of a workspace graph can be exported under the stix-mvp profile, and
 * the findings against the rest. Shared by export (strict fails on any finding, permissive drops) and by
 * graph-mode validation (findings become issues).
 *
 * Eligibility rule (ours; FACTS leaves imported candidates unexportable in strict mode, which would make
 * every round trip fail): a record is exportable when its status is `exportable`/`exported`, or when it is a
 * `candidate` imported from STIX whose stored raw object passes our STIX 2.1 validation — it is re-emitted
 * as the source asserted it. A record carrying native annotations (an evidence envelope: our own claim of
 * confidence and evidence) must also pass the CTI gates: confidence present and >= 0.8, evidence refs
 * present and stored. Native nodes with a cti label but no raw STIX are reported (STIX_RAW_REQUIRED).
 */
import type { GraphReader, PropertyValue } from '../graph/types.js'
import { fnv1a64Hex } from './canonical.js'
import {
  CTI_VOCABULARY,
  collectRefs,
  P,
  PREDEFINED_MARKINGS,
  STIX_EVIDENCE_LABEL,
  STIX_LABEL,
} from './mapping.js'
import { validateObject } from './validate.js'

export interface Finding {
  code: string
  message: string
  target_kind: 'node' | 'relationship'
  record_id: string
}

/**
 * One record of the plan. Lean on purpose: an export of a large workspace holds one per record at once,
 * so the stored raw text is referenced (not parsed and kept) and only the properties the plan reads are
 * copied out of the graph.
 */
export interface PlannedRecord {
  kind: 'node' | 'relationship'
  /** Graph id of the node or relationship. */
  graphId: number
  recordId: string
  /** The stored `stix_raw` text; `raw(r)` parses it. */
  rawText: string | undefined
  /** The raw object's `id` (the export's sort key), when the raw text parses to an object. */
  rawId: string | undefined
  /** Node labels by name (relationships: none; the cti payload is for nodes only). */
  labels: string[]
  status: string | undefined
  confidence: PropertyValue | undefined
  annotated: boolean
  evidenceRefs: PropertyValue | undefined
  stixId: string | undefined
  externalId: string | undefined
  /** Shared and frozen while empty (most records): add with `addFinding`. */
  findings: readonly Finding[]
  /** Graph endpoints of a relationship. */
  ends: [number, number] | undefined
  /** STIX ids the raw object refers to (set by planning; undefined without a parsable raw object). */
  refs: string[] | undefined
}

/** The cti `node.validate` payload (FACTS §11): compact JSON, keys alphabetical. */
export interface CtiNodePayload {
  confidence: number | null
  evidence_refs: string[]
  external_id: string | null
  labels: string[]
}

export interface ProviderIssue {
  code: string
  message: string
  field?: string | null
  severity?: string
  node_id?: string | null
}

/** Calls the cti provider for one node; throws when the call fails (502 DOMAIN_PROVIDER_ERROR upstream). */
export type ValidateNode = (payload: CtiNodePayload) => Promise<{ issues: ProviderIssue[] }>

const READY = new Set(['exportable', 'exported'])
export const CONFIDENCE_FLOOR = 0.8

const str = (v: PropertyValue | undefined) => (typeof v === 'string' ? v : undefined)

/** The stored raw object, parsed afresh (callers drop it when done with the record). */
export const raw = (r: PlannedRecord): Record<string, unknown> | null => parseRaw(r.rawText)

function parseRaw(text: string | undefined): Record<string, unknown> | null {
  if (text === undefined) return null
  try {
    const value = JSON.parse(text) as unknown
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null
  } catch {
    return null
  }
}

const kebab = (label: string) => label.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase()

/** Findings that depend on the record alone (raw, identity, status, CTI gates). */
function recordFindings(
  r: PlannedRecord,
  raw: Record<string, unknown> | null,
  evidenceIds: ReadonlySet<string>,
): Finding[] {
  const out: Finding[] = []
  const add = (code: string, message: string) =>
    out.push({ code, message: `${r.recordId}: ${message}`, target_kind: r.kind, record_id: r.recordId })
  const status = r.status ?? 'unknown'
  if (raw === null) {
    add('STIX_RAW_REQUIRED', 'no raw STIX object is stored for this record')
    if (!READY.has(status)) add('EXPORT_STATUS_NOT_READY', `status ${status} is not exportable`)
    return out
  }
  const type = typeof raw.type === 'string' ? raw.type : ''
  const id = typeof raw.id === 'string' ? raw.id : ''
  if (type === '') add('STIX_TYPE_REQUIRED', 'the raw object has no type')
  if (id === '') add('STIX_ID_REQUIRED', 'the raw object has no id')
  else if (type !== '' && !id.startsWith(`${type}--`))
    add('STIX_IDENTITY_INVALID', `id is not ${type}--<uuid>`)
  const errors = validateObject(raw, 0).filter((i) => i.severity === 'error')
  const first = errors[0]
  if (first !== undefined)
    add(
      'STIX_VALIDATION_FAILED',
      `${first.code} ${first.message}${errors.length > 1 ? ` (+${errors.length - 1} more)` : ''}`,
    )
  const importedAsIs = status === 'candidate' && r.rawText !== undefined
  if (!READY.has(status) && !importedAsIs)
    add('EXPORT_STATUS_NOT_READY', `status ${status} is not exportable`)
  if (r.annotated) {
    const confidence = r.confidence
    if (typeof confidence !== 'number')
      add('CTI_CONFIDENCE_REQUIRED', 'an annotated record needs a confidence')
    else if (confidence < CONFIDENCE_FLOOR)
      add('CTI_CONFIDENCE_TOO_LOW', `confidence ${confidence} is below ${CONFIDENCE_FLOOR}`)
    const refs = evidenceRefs(r)
    if (refs.length === 0) add('CTI_EVIDENCE_REQUIRED', 'an annotated record needs evidence refs')
    for (const ref of refs)
      if (!evidenceIds.has(ref)) add('CTI_EVIDENCE_NOT_FOUND', `evidence ${ref} is not stored`)
  }
  return out
}

export const evidenceRefs = (r: PlannedRecord): string[] => {
  const v = r.evidenceRefs
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []
}

const NO_LABELS: string[] = []
const NO_FINDINGS: readonly Finding[] = Object.freeze([])

function addFinding(r: PlannedRecord, ...findings: Finding[]): void {
  if (findings.length === 0) return
  r.findings = [...r.findings, ...findings]
}

/**
 * Builds plan records from graph properties (key ids looked up once per read). Every record gets every
 * field, in one order: one object shape for the hundreds of thousands of records of a large export.
 */
function recordPlanner(reader: GraphReader) {
  const key = (name: string) => reader.names.lookup(name)
  const k = {
    raw: key(P.raw),
    id: key(P.id),
    externalId: key(P.externalId),
    status: key(P.status),
    confidence: key(P.confidence),
    annotated: key(P.annotated),
    evidenceRefs: key(P.evidenceRefs),
  }
  return (
    kind: PlannedRecord['kind'],
    graphId: number,
    map: ReadonlyMap<number, PropertyValue> | undefined,
    labels: string[],
    fallbackId: (ids: { stixId: string | undefined; externalId: string | undefined }) => string,
    ends: [number, number] | undefined,
  ): PlannedRecord => {
    const get = (id: number) => (id < 0 ? undefined : map?.get(id))
    const stixId = str(get(k.id))
    const externalId = str(get(k.externalId))
    return {
      kind,
      graphId,
      recordId: fallbackId({ stixId, externalId }),
      rawText: str(get(k.raw)),
      rawId: undefined,
      labels,
      status: str(get(k.status)),
      confidence: get(k.confidence),
      annotated: get(k.annotated) === true,
      evidenceRefs: get(k.evidenceRefs),
      stixId,
      externalId,
      findings: NO_FINDINGS,
      ends,
      refs: undefined,
    }
  }
}

/** Reads the stix-mvp records of a graph (synchronously, one consistent version). */
export function collectRecords(reader: GraphReader): {
  records: PlannedRecord[]
  evidence: Map<string, string>
} {
  const names = reader.names
  const stixLabel = names.lookup(STIX_LABEL)
  const ctiLabels = new Set([...CTI_VOCABULARY].map((l) => names.lookup(l)).filter((id) => id >= 0))
  const plan = recordPlanner(reader)
  const typeKey = names.lookup(P.type)
  const rawKey = names.lookup(P.raw)
  const records: PlannedRecord[] = []
  for (const id of reader.allNodeIds()) {
    const node = reader.node(id)
    if (node === undefined || !node.labels.some((l) => l === stixLabel || ctiLabels.has(l))) continue
    const labels = node.labels.map((l) => names.name(l))
    const vocab = labels.find((l) => CTI_VOCABULARY.has(l)) ?? 'StixObject'
    const type = str(node.props.get(typeKey)) ?? kebab(vocab)
    records.push(
      plan(
        'node',
        id,
        node.props,
        labels,
        (p) => p.stixId ?? p.externalId ?? `${type}--${fnv1a64Hex(String(id))}`,
        undefined,
      ),
    )
  }
  for (const rel of reader.allRelIds()) {
    const props = reader.relProps(rel)
    // Native edges are outside the STIX profile; a non-string raw is in it (and reported).
    if (rawKey < 0 || props?.get(rawKey) === undefined) continue
    records.push(
      plan(
        'relationship',
        rel,
        props,
        NO_LABELS,
        (p) => p.stixId ?? `relationship--${fnv1a64Hex(`rel:${rel}`)}`,
        [reader.relStart(rel), reader.relEnd(rel)],
      ),
    )
  }
  const evidence = new Map<string, string>()
  const evLabel = names.lookup(STIX_EVIDENCE_LABEL)
  if (evLabel >= 0) {
    for (const id of reader.labelNodeIds(evLabel)) {
      const p = reader.node(id)?.props
      const eid = p?.get(names.lookup(P.evidenceId))
      const raw = p?.get(names.lookup(P.evidenceRaw))
      if (typeof eid === 'string' && typeof raw === 'string') evidence.set(eid, raw)
    }
  }
  return { records, evidence }
}

/**
 * Record findings, provider findings, then exclusions propagated through endpoints and references. Each
 * raw object is parsed here once and let go: what the later steps need of it (its id, its references)
 * is kept, with references pointing at the records' own id strings where they name one.
 */
export async function planExport(
  records: PlannedRecord[],
  evidenceIds: ReadonlySet<string>,
  validateNode?: ValidateNode,
): Promise<PlannedRecord[]> {
  const recordIds = new Map(records.map((r) => [r.recordId, r.recordId]))
  for (const r of records) {
    const object = raw(r)
    addFinding(r, ...recordFindings(r, object, evidenceIds))
    if (object === null) continue
    if (typeof object.id === 'string') r.rawId = recordIds.get(object.id) ?? object.id
    r.refs = [...collectRefs(object)].map((ref) => recordIds.get(ref) ?? ref)
  }
  if (validateNode !== undefined) {
    for (const r of records) {
      if (r.kind !== 'node') continue
      const confidence = r.confidence
      const payload: CtiNodePayload = {
        confidence: typeof confidence === 'number' ? confidence : null,
        evidence_refs: evidenceRefs(r),
        external_id: r.stixId ?? r.externalId ?? r.rawId ?? null,
        labels: r.labels,
      }
      const reply = await validateNode(payload)
      for (const i of reply.issues)
        addFinding(r, {
          code: i.code,
          message: `${r.recordId}: ${i.message}`,
          target_kind: 'node',
          record_id: r.recordId,
        })
    }
  }
  propagate(records)
  return records
}

/** An edge whose endpoint is excluded, or an object referring to an id outside the export, is excluded too. */
function propagate(records: PlannedRecord[]): void {
  const byGraphNode = new Map<number, PlannedRecord>()
  for (const r of records) if (r.kind === 'node') byGraphNode.set(r.graphId, r)
  let changed = true
  while (changed) {
    changed = false
    const exported = new Set(records.filter((r) => r.findings.length === 0).map((r) => r.recordId))
    for (const r of records) {
      if (r.findings.length > 0 || r.refs === undefined) continue
      if (r.ends !== undefined) {
        const ends = r.ends.map((e) => byGraphNode.get(e))
        if (ends.some((n) => n === undefined || n.findings.length > 0)) {
          const excluded = ends.find((n) => n === undefined || n.findings.length > 0)
          addFinding(r, {
            code: 'CTI_ENDPOINT_EXCLUDED',
            message: `${r.recordId}: endpoint ${excluded?.recordId ?? 'outside the profile'} is excluded`,
            target_kind: 'relationship',
            record_id: r.recordId,
          })
          changed = true
          continue
        }
      }
      for (const ref of r.refs) {
        if (exported.has(ref) || PREDEFINED_MARKINGS.has(ref)) continue
        addFinding(r, {
          code: 'STIX_REFERENCE_DANGLING',
          message: `${r.recordId}: reference ${ref} is not exported`,
          target_kind: r.kind,
          record_id: r.recordId,
        })
        changed = true
        break
      }
    }
  }
}
