/**
 * STIX bundle import: one bundle is one atomic transaction. Shape checks and the evidence envelope are
 * refused with 400 before anything is written; nodes are written before relationships whatever their
 * order; a relationship endpoint that resolves neither in the bundle nor in the graph aborts the whole
 * transaction (nothing committed) and is reported in a normal result (FACTS §5). The latest `modified` is
 * the current version: an older one never replaces it (import-versions.ts).
 */

import { isEngineError } from '../errors.js'
import { DEFAULT_WORKSPACE_ID } from '../graph/catalog.js'
import { bundleObjects, parseRecords } from './bundle.js'
import { type EvidenceEnvelope, parseEvidence } from './evidence.js'
import type { StixHost } from './host.js'
import { VersionRecorder } from './import-versions.js'
import { P, STIX_EVIDENCE_LABEL } from './mapping.js'
import { type ImportOutcome, type ImportResult, importResult } from './outcomes.js'
import { givenIds } from './request-ids.js'
import { STIX_VERSIONS_LEDGER } from './versions.js'
import { StixWriter, type Unresolved } from './write.js'

export interface StixImportRequest {
  bundle: unknown
  evidence?: unknown
  workspaceId?: string | undefined
  /** When it names a live session, the write is a timeshot of it and a snapshot is recorded after it. */
  sessionId?: string | undefined
  budgetRef?: string | undefined
}

export interface StixImportReport {
  result: ImportResult
  /** Commit sequence, or null when nothing was written (all duplicates, or aborted). */
  sequence: number | null
  transactionId: string | null
  /** The snapshot recorded for the session, if any. */
  snapshotId: string | null
}

class AtomicAbort extends Error {
  constructor(readonly unresolved: Unresolved[]) {
    super('unresolved STIX reference')
  }
}

function sessionExists(engine: StixHost, sessionId: string | undefined): sessionId is string {
  if (sessionId === undefined) return false
  try {
    engine.sessions.assertExists(sessionId)
    return true
  } catch {
    return false
  }
}

/** Imports one bundle. Throws EngineError (category invalid) for the 400 cases. */
export async function importStix(engine: StixHost, given: StixImportRequest): Promise<StixImportReport> {
  const request = givenIds(given)
  const records = parseRecords(bundleObjects(request.bundle))
  const workspaceId = request.workspaceId ?? DEFAULT_WORKSPACE_ID
  const ids = new Set(records.map((r) => r.id))
  const envelope: EvidenceEnvelope | null =
    request.evidence === undefined
      ? null
      : await engine.readGraph(workspaceId, (store) => {
          const label = store.names.lookup(STIX_EVIDENCE_LABEL)
          const key = store.names.lookup(P.evidenceId)
          const known = (id: string) =>
            label >= 0 && key >= 0 && !store.propertyNodeIds(label, key, id)[Symbol.iterator]().next().done
          return parseEvidence(request.evidence, ids, known)
        })
  const session = sessionExists(engine, request.sessionId) ? request.sessionId : undefined
  let outcomes: ImportOutcome[]
  let sequence: number | null = null
  let transactionId: string | null = null
  try {
    // In slices: a bundle of tens of thousands of objects would otherwise hold the event loop for seconds.
    const done = await engine.transactInSlices(
      workspaceId,
      async (tx, _store, ledger) => {
        const versions = new VersionRecorder(engine.stixVersions, workspaceId)
        const writer = new StixWriter(tx, envelope?.annotations ?? new Map(), versions)
        const slices = new Slicer()
        for (const record of envelope?.records ?? []) writer.writeEvidence(record)
        for (const record of records) {
          if (record.relationship) continue
          writer.writeNode(record)
          const turn = slices.maybeYield()
          if (turn !== undefined) await turn
        }
        for (const record of records) {
          if (!record.relationship) continue
          writer.writeRelationship(record)
          const turn = slices.maybeYield()
          if (turn !== undefined) await turn
        }
        if (writer.unresolved.length > 0) throw new AtomicAbort(writer.unresolved)
        // Versions and their date added commit in the same WAL record as the objects.
        const entry = versions.entry()
        if (entry !== null) ledger.write(STIX_VERSIONS_LEDGER, entry)
        return writer.outcomes
      },
      { sessionId: session, label: 'stix import' },
    )
    outcomes = done.value
    sequence = done.sequence
    transactionId = done.transaction_id
  } catch (error) {
    if (!(error instanceof AtomicAbort)) throw error
    return {
      result: abortedResult(records, error.unresolved),
      sequence: null,
      transactionId: null,
      snapshotId: null,
    }
  }
  let snapshotId: string | null = null
  if (session !== undefined && sequence !== null) {
    try {
      snapshotId = (await engine.explorer.snapshot(session, 'stix import')).boundary_id
    } catch (error) {
      if (!isEngineError(error)) throw error // the session stopped meanwhile: the import itself stands
    }
  }
  return { result: importResult(records.length, outcomes), sequence, transactionId, snapshotId }
}

function abortedResult(records: ReturnType<typeof parseRecords>, unresolved: Unresolved[]): ImportResult {
  const missing = new Map(unresolved.map((u) => [u.id, u.reference]))
  const outcomes: ImportOutcome[] = records.map((r) => {
    const record_type = r.relationship ? 'relationship' : 'entity'
    const reference = r.repeat ? undefined : missing.get(r.id)
    return reference === undefined
      ? { id: r.id, record_type, status: 'rejected', error_code: 'ATOMIC_IMPORT_ABORTED' }
      : {
          id: r.id,
          record_type,
          status: 'unresolved_reference',
          reference,
          error_code: 'UNRESOLVED_STIX_REFERENCE',
        }
  })
  const refs = [...new Set(unresolved.map((u) => u.reference))].sort()
  return importResult(records.length, outcomes, [
    `atomic import aborted: unresolved STIX reference${refs.length > 1 ? 's' : ''} ${refs.join(', ')}`,
  ])
}

/** Yields to the event loop once a slice of work has run this long. */
const SLICE_MS = 8

class Slicer {
  private started = performance.now()
  private count = 0

  /** Resolves at once within a slice (checked every 64 calls), on the next turn after it. */
  maybeYield(): Promise<void> | undefined {
    if ((++this.count & 63) !== 0 || performance.now() - this.started < SLICE_MS) return undefined
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        this.started = performance.now()
        resolve()
      }),
    )
  }
}
