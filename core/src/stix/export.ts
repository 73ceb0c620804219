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

import type { Engine } from '../engine/engine.js'
import { EngineError } from '../errors.js'
import { DEFAULT_WORKSPACE_ID } from '../graph/catalog.js'
import { canonicalize, uuidV5 } from './canonical.js'
import { P } from './mapping.js'
import { byKeys } from './order.js'
import {
  collectRecords,
  evidenceRefs,
  type Finding,
  type PlannedRecord,
  planExport,
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
  /** The canonical text: what the route sends, byte for byte. */
  text: string
  /** Parsed from `text` on demand. */
  readonly bundle: Record<string, unknown>
}

const bad = (code: string, message: string) => new EngineError(code, message, 'invalid')

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

function emit(r: PlannedRecord): Record<string, unknown> {
  const object = { ...(r.raw as Record<string, unknown>) }
  if (object.type === 'marking-definition') return object
  const confidence = r.props.get(P.confidence)
  if (typeof confidence === 'number') object.confidence = Math.round(confidence * 100)
  const refs = evidenceRefs(r)
  if (refs.length > 0) object.x_service_evidence_refs = [...refs].sort()
  const stixId = r.props.get(P.id)
  if (typeof stixId === 'string') object.x_service_source_record_id = sourceRecordId(stixId)
  return object
}

export async function exportStix(engine: Engine, given: StixExportRequest = {}): Promise<StixExport> {
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
  // Each object is made canonical once; the bundle text splices the sorted object texts in place of a marker.
  const texts = exported.map((r) => ({ id: String(r.raw?.id), text: canonicalize(emit(r)) }))
  texts.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  const objectsText = `[${texts.map((t) => t.text).join(',')}]`
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
    id: `bundle--${uuidV5(`${determinism_key}\n${objectsText}`)}`,
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
  const text = canonicalize(bundle).replace(JSON.stringify(OBJECTS_MARKER), () => objectsText)
  return {
    text,
    get bundle() {
      return JSON.parse(text) as Record<string, unknown>
    },
  }
}

const OBJECTS_MARKER = '\u0000objects\u0000'
