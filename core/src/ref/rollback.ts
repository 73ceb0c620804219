/**
 * The rollback's own work, beside the write path (spec, rollback procedure; issue 29): the reconstruction
 * corpus and the rebuild of a clean reference from it, the parity report the service computes, the evidence
 * that gates every authority assignment, and the return path that brings the reference's writes back.
 */
import type { GraphStore } from '../graph/store.js'
import type { Transaction } from '../graph/transaction.js'
import type { LedgerWriter } from '../kernel/ledger.js'
import { canonicalize } from '../stix/canonical.js'
import type { AuthorityRequest } from './authority.js'
import { messageOf, RefErrors } from './codes.js'
import { type Corpus, loadCorpus, readCorpus } from './corpus.js'
import type { EvidenceEntry, EvidenceState, ParityReport } from './evidence-state.js'
import type { JournalEntry, RefJournal } from './journal.js'
import {
  compareSnapshots,
  type ParityInputs,
  type ParitySnapshot,
  paritySnapshot,
  type SnapshotPort,
} from './parity.js'
import type { ReferenceProbe } from './reference-probe.js'
import type { RefState, StoredResponse } from './state.js'

/** Journal writes pulled per page on the return path. */
const RETURN_PAGE = 256

export interface RollbackPort extends Omit<SnapshotPort, 'readGraph'> {
  state: RefState
  journal: RefJournal
  evidence: EvidenceState
  probe: ReferenceProbe | null
  persistent: boolean
  readGraph<T>(fn: (store: GraphStore) => T): Promise<T>
  /** One write transaction on the canonical workspace (records and ledgers commit together). */
  transact<T>(fn: (tx: Transaction, ledger: LedgerWriter) => T): Promise<T>
  /** Commits evidence entries durably. */
  commitEvidence(entries: EvidenceEntry[]): Promise<void>
  /** The relationship index of the write path, and a way to have it rebuilt after a load. */
  relationshipIndex(): ReadonlyMap<string, number>
  resetRelationshipIndex(): void
  /** Applies a write the reference accepted, as a replay: no authority gate, no projection back. */
  replayWrite(request: unknown): Promise<StoredResponse>
  now(): number
}

/** A refusal, the failed gate first: "evidence contradicts <flag>: <what the service found>". */
const contradicts = (flag: string, found: string) => `evidence contradicts ${flag}: ${found}`

export class RefRollback {
  constructor(private readonly port: RollbackPort) {}

  // ---- reconstruction -------------------------------------------------------------------------------

  async corpus(): Promise<Corpus> {
    if (!this.port.persistent) throw RefErrors.reconstructionNeedsPersistence()
    try {
      return await this.port.readGraph((store) => readCorpus(store, this.port.state))
    } catch (error) {
      throw RefErrors.reconstructionFailed(`the canonical records could not be read: ${messageOf(error)}`)
    }
  }

  /** Rebuilds this (clean) store as the reference from a primary's corpus: records, revisions, receipts. */
  async load(corpus: Corpus): Promise<{ records: number; receipts: number }> {
    if (!this.port.persistent) throw RefErrors.reconstructionNeedsPersistence()
    try {
      const loaded = await this.port.transact((tx, ledger) =>
        loadCorpus(tx, ledger, corpus, this.port.relationshipIndex()),
      )
      return loaded
    } catch (error) {
      if (
        error instanceof Error &&
        'code' in error &&
        (error.code === 'REF_RECONSTRUCTION_INVALID' || error.code === 'REF_RECONSTRUCTION_TARGET_NOT_EMPTY')
      )
        throw error
      throw RefErrors.reconstructionFailed(`the corpus could not be committed: ${messageOf(error)}`)
    } finally {
      this.port.resetRelationshipIndex()
    }
  }

  // ---- parity --------------------------------------------------------------------------------------

  /** This store's side of a parity comparison. */
  snapshot(inputs: ParityInputs): Promise<ParitySnapshot> {
    return paritySnapshot(this.port, inputs)
  }

  /** Keys of the writes the reference must hold receipts for: those the outbox still lists as delivered. */
  private deliveredKeys(): string[] {
    const keys: string[] = []
    for (const entry of this.port.state.entries.values())
      if (entry.status === 'delivered' || entry.status === 'quarantined') keys.push(entry.key)
    return keys
  }

  private async referenceSnapshot(inputs: ParityInputs): Promise<ParitySnapshot> {
    const probe = this.requireProbe('a parity report')
    try {
      return await probe.snapshot(inputs)
    } catch (error) {
      throw RefErrors.referenceUnavailable(
        `the reference's parity snapshot could not be read: ${messageOf(error)}`,
      )
    }
  }

  /** Computes primary and reference snapshots over the same inputs, compares them, records the report. */
  async parity(stated: Omit<ParityInputs, 'keys'>): Promise<ParityReport> {
    this.requireProbe('a parity report')
    const inputs: ParityInputs = { ...stated, keys: this.deliveredKeys() }
    const ours = await this.snapshot(inputs)
    const theirs = await this.referenceSnapshot(inputs)
    const report = compareSnapshots(ours, theirs, new Date(this.port.now()).toISOString(), inputs.keys.length)
    await this.saveEvidence([{ k: 'parity', report }])
    return report
  }

  lastParity(): ParityReport | null {
    return this.port.evidence.parity
  }

  // ---- journal and return path ------------------------------------------------------------------

  /** This store's journal above `after` (what a primary pulls on its return path). */
  journal(after: number, limit: number) {
    const page = this.port.journal.since(after, limit)
    return { high_water_sequence: this.port.state.nextSequence - 1, ...page }
  }

  /**
   * The return path: pulls the writes the reference accepted above the handover mark (or above what an
   * earlier run returned), in order, and applies each here as a replay with its own (hashed) key, so a
   * write that is already here answers from its receipt. Each answer must equal the reference's; the first
   * that does not stops the return. Records how far it got: the evidence of `replay_complete`.
   */
  async returnWrites(): Promise<{
    returned_through: number
    replayed: number
    reference_high_water_sequence: number
  }> {
    const probe = this.requireProbe('the return path')
    const { state, evidence } = this.port
    if (state.authority !== 'reference_primary')
      throw RefErrors.returnFailed(
        `the return path runs while the reference is primary (authority is ${state.authority})`,
      )
    let after = evidence.returnedThrough ?? evidence.handover?.reference_high_water_sequence ?? 0
    let replayed = evidence.returnedThrough === null ? 0 : evidence.returnedWrites
    let highWater = after
    try {
      for (;;) {
        let page: Awaited<ReturnType<ReferenceProbe['journal']>>
        try {
          page = await probe.journal(after, RETURN_PAGE)
        } catch (error) {
          throw RefErrors.referenceUnavailable(
            `the reference's journal could not be read: ${messageOf(error)}`,
          )
        }
        highWater = page.high_water_sequence
        if (!page.complete)
          throw RefErrors.returnFailed(
            `the reference's journal no longer holds every write above sequence ${after}; rebuild this store from the reference instead`,
          )
        if (page.entries.length === 0) break
        for (const entry of page.entries) {
          await this.replayOne(entry)
          after = entry.sequence
          replayed += 1
        }
      }
    } finally {
      // Progress is kept even when a write stops the return: a second run resumes after it.
      await this.saveEvidence([{ k: 'returned', through: after, replayed }])
    }
    return { returned_through: after, replayed, reference_high_water_sequence: highWater }
  }

  private async replayOne(entry: JournalEntry): Promise<void> {
    const request = entry.request as { context?: Record<string, unknown> }
    // The reference's deadline has passed long ago; the return is not bound by it.
    const replay = { ...request, context: { ...request.context, deadline_unix_ms: null } }
    const answer = await this.port.replayWrite(replay)
    const theirs = entry.response.outcome
    const ours = answer.outcome
    if (
      ours.status !== 'success' ||
      canonicalize(ours.response) !== canonicalize((theirs as { response?: unknown }).response)
    )
      throw RefErrors.returnFailed(
        `the write at reference sequence ${entry.sequence} (key ${entry.key}) answered differently here: ` +
          `${ours.status === 'success' ? 'a different response' : canonicalize(ours.error).slice(0, 200)}`,
      )
  }

  // ---- evidence ---------------------------------------------------------------------------------

  /**
   * What the service's own evidence says against an assignment, and what to record with it when allowed.
   * reference_primary: the reference answers its readiness probe, holds a receipt for every delivered write,
   * and the last parity report is verified at or above the current high-water with the reference unchanged
   * since. Back to service_primary from reference_primary: the return path replayed everything the reference
   * holds, and a verified parity report was computed after it.
   */
  async evidenceFor(request: AuthorityRequest): Promise<{ refused: string[]; record: EvidenceEntry[] }> {
    const { state, evidence } = this.port
    const refused: string[] = []
    const highWater = state.nextSequence - 1
    if (request.target === 'reference_primary') {
      const probe = this.port.probe
      if (probe === null) {
        refused.push(contradicts('reference_healthy', 'no reference platform is configured'))
        return { refused, record: [] }
      }
      const health = await probe.health()
      if (!health.healthy)
        refused.push(contradicts('reference_healthy', `the readiness probe failed: ${health.detail}`))
      let reference: ParitySnapshot | null = null
      try {
        reference = await probe.snapshot({
          queries: [],
          subjects: [],
          record_ids: [],
          keys: this.deliveredKeys(),
        })
      } catch (error) {
        refused.push(
          contradicts('replay_complete', `the reference's receipts could not be read: ${messageOf(error)}`),
        )
      }
      if (reference !== null && reference.receipts_missing.length > 0)
        refused.push(
          contradicts(
            'replay_complete',
            `the reference holds no receipt for ${reference.receipts_missing.length} delivered writes (first ${reference.receipts_missing[0]})`,
          ),
        )
      refused.push(...this.parityRefusals(highWater, reference?.high_water_sequence ?? null))
      const record: EvidenceEntry[] =
        reference === null
          ? []
          : [
              {
                k: 'handover',
                handover: {
                  reference_high_water_sequence: reference.high_water_sequence,
                  at: new Date(this.port.now()).toISOString(),
                },
              },
            ]
      return { refused, record }
    }
    if (request.target === 'service_primary' && state.authority === 'reference_primary') {
      const returned = evidence.returnedThrough
      if (returned === null)
        refused.push(
          contradicts('replay_complete', 'the return path has not run (POST /v1/admin/ref/return)'),
        )
      else {
        try {
          const page = await this.requireProbe('the return').journal(returned, 1)
          if (page.entries.length > 0)
            refused.push(
              contradicts(
                'replay_complete',
                `the reference accepted writes above sequence ${returned} (up to ${page.high_water_sequence}) that are not returned yet`,
              ),
            )
        } catch (error) {
          refused.push(
            contradicts('replay_complete', `the reference's journal could not be read: ${messageOf(error)}`),
          )
        }
      }
      refused.push(...this.parityRefusals(highWater, returned))
      return { refused, record: [{ k: 'handover', handover: null }] }
    }
    return { refused, record: [] }
  }

  /** The last parity report must be verified, cover the current high-water, and postdate the reference's state. */
  private parityRefusals(highWater: number, referenceHighWater: number | null): string[] {
    const report = this.port.evidence.parity
    if (report === null)
      return [
        contradicts('parity_verified', 'no parity report has been computed (POST /v1/admin/ref/parity)'),
      ]
    const out: string[] = []
    if (!report.verified) {
      const failed = Object.entries(report.dimensions)
        .filter(([, d]) => !d.ok)
        .map(([name, d]) => `${name} (${d.mismatches.slice(0, 3).join(', ')})`)
      out.push(contradicts('parity_verified', `the last parity report differs in ${failed.join('; ')}`))
    }
    if (report.high_water_sequence < highWater)
      out.push(
        contradicts(
          'parity_verified',
          `the last parity report covers sequence ${report.high_water_sequence}, the outbox is at ${highWater}`,
        ),
      )
    if (referenceHighWater !== null && report.reference_high_water_sequence < referenceHighWater)
      out.push(
        contradicts(
          'parity_verified',
          `the reference moved to sequence ${referenceHighWater} after the last parity report (${report.reference_high_water_sequence})`,
        ),
      )
    return out
  }

  private requireProbe(what: string): ReferenceProbe {
    if (this.port.probe === null) throw RefErrors.referenceNotConfigured(what)
    return this.port.probe
  }

  private async saveEvidence(entries: EvidenceEntry[]): Promise<void> {
    try {
      await this.port.commitEvidence(entries)
    } catch (error) {
      throw RefErrors.authorityFailed(`the rollback evidence could not be saved: ${messageOf(error)}`)
    }
  }
}
