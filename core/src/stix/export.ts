/**
 * Deterministic STIX export (stix-mvp profile). The bundle is RFC 8785 canonical JSON, objects ordered by
 * id, its id a v5 UUID of the canonical content and the determinism key, so two exports of the same graph
 * with the same parameters are byte-identical, across restarts too. Imported objects are re-emitted from
 * their stored raw with these documented additions only:
 *   - `confidence`: round(c * 100) when the record has a confidence (equal to the imported value);
 *   - `x_service_evidence_refs`: the record's evidence refs, sorted, when there are any;
 *   - `x_service_source_record_id`: `record--<uuid v5 of the STIX id>`, stable across replays and stores.
 * Marking definitions are re-emitted untouched (they cannot carry custom properties meaningfully, and the
 * predefined TLP markings must stay byte-exact).
 */

import { EngineError, type ErrorCode } from '../errors.js'
import { DEFAULT_WORKSPACE_ID } from '../graph/catalog.js'
import { canonicalize, uuidV5 } from './canonical.js'
import type { StixHost } from './host.js'
import { byKeys } from './order.js'
import {
  collectRecords,
  evidenceRefs,
  type Finding,
  type PlannedRecord,
  planExport,
  raw,
  type ValidateNode,
} from './plan.js'
import { givenIds } from './request-ids.js'

export const EXPORT_DEFAULTS = {
  snapshotId: 'snapshot--current',
  transactionId: 'transaction--http-export',
  exporterVersion: 'service-http-server-v0',
  mode: 'strict',
  profile: 'stix-mvp',
} as const

export const MAX_EXCLUSIONS = 256

export interface StixExportRequest {
  workspaceId?: string | undefined
  snapshotId?: string | undefined
  transactionId?: string | undefined
  exporterVersion?: string | undefined
  mode?: string | undefined
  profile?: string | undefined
  /** The cti pack's node.validate, when it is licensed and ready. */
  validateNode?: ValidateNode | undefined
}

export interface StixExport {
  /**
   * The canonical text in order, as pieces of moderate size: what the route sends, byte for byte. A large
   * export is hundreds of MB; sending the pieces keeps a single joined copy (and its UTF-8 copy) off the heap.
   */
  pieces(): Iterable<string>
  /** UTF-8 length of the whole text (the Content-Length). */
  readonly byteLength: number
  /** The whole text, joined on demand. */
  readonly text: string
  /** Parsed from `text` on demand. */
  readonly bundle: Record<string, unknown>
}

const bad = (code: ErrorCode, message: string) => new EngineError(code, message)

/** The provenance id of a stored STIX record: derived, so it needs no storage and never drifts. */
export const sourceRecordId = (stixId: string): string => `record--${uuidV5(stixId)}`

function parameters(request: StixExportRequest) {
  const mode = request.mode ?? EXPORT_DEFAULTS.mode
  if (mode !== 'strict' && mode !== 'permissive')
    throw bad('INVALID_EXPORT_MODE', 'mode must be strict or permissive')
  const profile = request.profile ?? EXPORT_DEFAULTS.profile
  if (profile !== 'stix-mvp') throw bad('INVALID_EXPORT_PROFILE', 'profile must be stix-mvp')
  const transactionId = request.transactionId ?? EXPORT_DEFAULTS.transactionId
  if (transactionId.trim() === '') throw bad('INVALID_TRANSACTION_ID', 'transaction_id must not be blank')
  const snapshotId = request.snapshotId ?? EXPORT_DEFAULTS.snapshotId
  const exporterVersion = request.exporterVersion ?? EXPORT_DEFAULTS.exporterVersion
  for (const [field, value] of [
    ['snapshot_id', snapshotId],
    ['exporter_version', exporterVersion],
  ] as const) {
    if (value.trim() === '') throw bad('EXPORT_PLAN_FAILED', `invalid export metadata field: ${field}`)
  }
  return { mode, profile, transactionId, snapshotId, exporterVersion }
}

const byRecord = byKeys<Finding>(
  (f) => f.record_id,
  (f) => f.code,
)

/** The strict failure: one 400 EXPORT_PLAN_FAILED naming every finding. */
export function strictFailure(findings: Finding[]): EngineError {
  const text = [...findings].sort(byRecord).map((f) => `${f.code}: ${f.message}`)
  return bad('EXPORT_PLAN_FAILED', `strict export mode rejected export plan: ${text.join('; ')}`)
}

/** The exported object's canonical text (its stored raw, parsed again: the plan does not keep it). */
function emit(r: PlannedRecord): string {
  const object = raw(r) as Record<string, unknown>
  if (object.type !== 'marking-definition') {
    const confidence = r.confidence
    if (typeof confidence === 'number') object.confidence = Math.round(confidence * 100)
    const refs = evidenceRefs(r)
    if (refs.length > 0) object.x_service_evidence_refs = [...refs].sort()
    if (r.stixId !== undefined) object.x_service_source_record_id = sourceRecordId(r.stixId)
  }
  return canonicalize(object)
}

/**
 * Characters per piece, about: pieces stay under V8's large-object size (128 KB), which would give every
 * piece (and its UTF-8 copy on the socket) a mapping of its own.
 */
const PIECE_CHARS = 48 * 1024

export async function exportStix(engine: StixHost, given: StixExportRequest = {}): Promise<StixExport> {
  const request = givenIds(given)
  const params = parameters(request)
  const workspaceId = request.workspaceId ?? DEFAULT_WORKSPACE_ID
  // A snapshot is read as it was, from record history; snapshot--current is the published graph.
  const { records, evidence } = await engine.readAt(workspaceId, params.snapshotId, (reader) =>
    collectRecords(reader),
  )
  await planExport(records, new Set(evidence.keys()), request.validateNode)
  const findings = records.flatMap((r) => r.findings)
  if (params.mode === 'strict' && findings.length > 0) throw strictFailure(findings)
  const exported = records.filter((r) => r.findings.length === 0)
  // Sorted by raw id (every exported record has one). The bundle text is the sorted object texts in place of
  // a marker; they are made twice, once to hash (the bundle id comes first) and once to send, piece by
  // piece: keeping them all would hold a second copy of every stored raw for the whole response.
  exported.sort((a, b) => compareIds(a.rawId as string, b.rawId as string))
  const objectsPieces = function* (): Generator<string> {
    let piece = '['
    for (let i = 0; i < exported.length; i++) {
      piece += `${i === 0 ? '' : ','}${emit(exported[i] as PlannedRecord)}`
      if (piece.length >= PIECE_CHARS) {
        yield piece
        piece = ''
      }
    }
    yield `${piece}]`
  }
  let objectsBytes = 0
  const measured = function* (): Generator<string> {
    for (const piece of objectsPieces()) {
      objectsBytes += Buffer.byteLength(piece)
      yield piece
    }
  }
  const exclusions = records
    .filter((r) => r.findings.length > 0)
    .map((r) => [...r.findings].sort(byRecord)[0] as Finding)
    .sort(byRecord)
    .slice(0, MAX_EXCLUSIONS)
  const usedEvidence = [...new Set(exported.flatMap(evidenceRefs))].sort().filter((id) => evidence.has(id))
  const determinism_key = [
    params.snapshotId,
    params.transactionId,
    params.exporterVersion,
    params.profile,
    params.mode,
  ].join('|')
  const bundle: Record<string, unknown> = {
    type: 'bundle',
    id: `bundle--${uuidV5(hashed(`${determinism_key}\n`, measured()))}`,
    spec_version: '2.1',
    objects: OBJECTS_MARKER,
    export_metadata: {
      snapshot_id: params.snapshotId,
      transaction_id: params.transactionId,
      exporter_version: params.exporterVersion,
      profile: params.profile,
      mode: params.mode,
      determinism_key,
    },
    export_diagnostics: { exclusions },
  }
  if (usedEvidence.length > 0)
    bundle.x_service_evidence = usedEvidence.map((id) => JSON.parse(evidence.get(id) as string))
  const outer = canonicalize(bundle)
  const marker = JSON.stringify(OBJECTS_MARKER)
  const at = outer.indexOf(marker)
  const head = outer.slice(0, at)
  const tail = outer.slice(at + marker.length)
  const pieces = function* (): Generator<string> {
    yield head
    yield* objectsPieces()
    yield tail
  }
  const byteLength = Buffer.byteLength(head) + objectsBytes + Buffer.byteLength(tail)
  const text = () => [...pieces()].join('')
  return {
    pieces,
    byteLength,
    get text() {
      return text()
    },
    get bundle() {
      return JSON.parse(text()) as Record<string, unknown>
    },
  }
}

function* hashed(first: string, rest: Iterable<string>): Generator<string> {
  yield first
  yield* rest
}

const compareIds = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

const OBJECTS_MARKER = '\u0000objects\u0000'
