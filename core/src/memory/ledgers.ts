import type { Ledger } from '../kernel/ledger.js'
import type { Lifecycle, MemoryResponse } from './types.js'

/**
 * The memory contract's durable state beside the graph. Entries commit in the same WAL record as the graph
 * ops of their mutation, replay on recovery and ride in every checkpoint, so receipts and version logs
 * survive `kill -9` and do not depend on the (trimmable) record history.
 */

const scoped = (workspace: string, key: string) => `${workspace}\u0000${key}`

export interface ReceiptEntry {
  workspace: string
  /** SHA-256 of the idempotency key; the key itself is never stored. */
  key_hash: string
  /** SHA-256 of the canonical request. */
  request_hash: string
  response: MemoryResponse
}

/**
 * A replay's mark in the log. It changes nothing; writing it makes the replay wait, like any write, until
 * everything before it (the original mutation included) is durable.
 */
export interface ReplayMark {
  replay: true
}

/** Idempotency receipts by workspace and key hash. */
export class ReceiptLedger implements Ledger<ReceiptEntry | ReplayMark> {
  readonly name = 'memory-receipts'
  private readonly receipts = new Map<string, ReceiptEntry>()

  apply(entry: ReceiptEntry | ReplayMark): void {
    if ('replay' in entry) return
    this.receipts.set(scoped(entry.workspace, entry.key_hash), entry)
  }

  image(): Iterable<ReceiptEntry> {
    return this.receipts.values()
  }

  reset(): void {
    this.receipts.clear()
  }

  get(workspace: string, keyHash: string): ReceiptEntry | undefined {
    return this.receipts.get(scoped(workspace, keyHash))
  }
}

/** One version of a memory or relationship: who made it, under which request, and what policy said. */
export interface VersionEntry {
  workspace: string
  record_id: string
  version: number
  lifecycle: Lifecycle
  recorded_at: string
  operation: string
  actor_id: string
  agent_id: string | null
  session_id: string
  correlation_id: string
  /** Relationship identity key (memories are found through the graph's property index). */
  identity_key: string | null
  /** Evidence source ids this version added. */
  evidence_source_ids: string[]
  policy_decisions: string[]
  reason: string | null
}

/** Version logs per record, plus the lookups trace and relate need (by correlation id, by identity key). */
export class VersionLedger implements Ledger<VersionEntry> {
  readonly name = 'memory-versions'
  private readonly versions = new Map<string, VersionEntry[]>()
  private readonly byCorrelation = new Map<string, VersionEntry[]>()
  private readonly relationshipIdentities = new Map<string, string>()

  apply(entry: VersionEntry): void {
    const key = scoped(entry.workspace, entry.record_id)
    const list = this.versions.get(key)
    if (list === undefined) this.versions.set(key, [entry])
    else list.push(entry)
    const c = scoped(entry.workspace, entry.correlation_id)
    const mutations = this.byCorrelation.get(c)
    if (mutations === undefined) this.byCorrelation.set(c, [entry])
    else mutations.push(entry)
    if (entry.identity_key !== null && entry.record_id.startsWith('relationship--'))
      this.relationshipIdentities.set(scoped(entry.workspace, entry.identity_key), entry.record_id)
  }

  *image(): Iterable<VersionEntry> {
    for (const list of this.versions.values()) yield* list
  }

  reset(): void {
    this.versions.clear()
    this.byCorrelation.clear()
    this.relationshipIdentities.clear()
  }

  of(workspace: string, recordId: string): readonly VersionEntry[] {
    return this.versions.get(scoped(workspace, recordId)) ?? []
  }

  byCorrelationId(workspace: string, correlationId: string): readonly VersionEntry[] {
    return this.byCorrelation.get(scoped(workspace, correlationId)) ?? []
  }

  relationshipByIdentity(workspace: string, identityKey: string): string | undefined {
    return this.relationshipIdentities.get(scoped(workspace, identityKey))
  }
}

/** The secret that signs page tokens: made once, kept durable so tokens outlive a restart. */
export class PageKeyLedger implements Ledger<{ key: string }> {
  readonly name = 'memory-page-key'
  key: string | null = null

  apply(entry: { key: string }): void {
    this.key = entry.key
  }

  *image(): Iterable<{ key: string }> {
    if (this.key !== null) yield { key: this.key }
  }

  reset(): void {
    this.key = null
  }
}
