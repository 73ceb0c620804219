/**
 * The rollback's evidence, as the service itself established it (its own ledger, durable like the
 * authority): the last parity report with the high-water sequence it covers, the handover mark (the
 * reference's journal high-water when it became primary) and how far the return path has replayed the
 * reference's writes. The authority gates read it; an operator's flags alone no longer move authority.
 */
import type { Ledger } from '../kernel/ledger.js'

export const EVIDENCE_LEDGER = 'ref-evidence'

export interface DimensionResult {
  ok: boolean
  /** What was compared on each side (records, queries, decisions, …). */
  compared: number
  /** The first differences, by record id or query (at most MISMATCH_LISTED). */
  mismatches: string[]
}

export const PARITY_DIMENSIONS = [
  'records',
  'relationships',
  'full_text',
  'access',
  'index_generations',
  'replay_receipts',
] as const
export type ParityDimension = (typeof PARITY_DIMENSIONS)[number]

export interface ParityReport {
  verified: boolean
  /** The primary's outbox high-water sequence when the report was computed. */
  high_water_sequence: number
  /** The reference's journal high-water sequence at the same time. */
  reference_high_water_sequence: number
  computed_at: string
  dimensions: Record<ParityDimension, DimensionResult>
}

export interface Handover {
  /** The reference's journal high-water when it became primary: the return replays the writes above it. */
  reference_high_water_sequence: number
  at: string
}

export type EvidenceEntry =
  | { k: 'parity'; report: ParityReport }
  | { k: 'handover'; handover: Handover | null }
  | { k: 'returned'; through: number; replayed: number }

export class EvidenceState implements Ledger<EvidenceEntry> {
  readonly name = EVIDENCE_LEDGER
  parity: ParityReport | null = null
  handover: Handover | null = null
  /** The reference's journal sequence the return path has replayed through (null: no return run yet). */
  returnedThrough: number | null = null
  returnedWrites = 0

  apply(e: EvidenceEntry): void {
    switch (e.k) {
      case 'parity':
        this.parity = e.report
        return
      case 'handover':
        this.handover = e.handover
        this.returnedThrough = null
        this.returnedWrites = 0
        return
      case 'returned':
        this.returnedThrough = e.through
        this.returnedWrites = e.replayed
        return
    }
  }

  *image(): Iterable<EvidenceEntry> {
    if (this.parity !== null) yield { k: 'parity', report: this.parity }
    if (this.handover !== null) yield { k: 'handover', handover: this.handover }
    if (this.returnedThrough !== null)
      yield { k: 'returned', through: this.returnedThrough, replayed: this.returnedWrites }
  }

  reset(): void {
    this.parity = null
    this.handover = null
    this.returnedThrough = null
    this.returnedWrites = 0
  }
}
