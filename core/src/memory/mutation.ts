import type { GraphStore } from '../graph/store.js'
import type { Transaction } from '../graph/transaction.js'
import type { LedgerWriter } from '../kernel/ledger.js'
import { envelope, replayed, sha256 } from './envelope.js'
import { memoryError } from './errors.js'
import {
  createMemory,
  createRelationship,
  readMemory,
  readRelationship,
  writeMemory,
  writeRelationship,
} from './layout.js'
import type { ReceiptLedger, VersionEntry, VersionLedger } from './ledgers.js'
import { canonicalJson, type ParsedRequest } from './request.js'
import {
  CONTRACT_VERSION,
  type MemoryContext,
  type MemoryRecord,
  type MemoryResponse,
  type Receipt,
  type RelationshipRecord,
} from './types.js'

/** Attribution and the version-log writer handed to a mutation. */
export interface Mutation {
  context: MemoryContext
  now: string
  operation: string
  tx: Transaction
  /** The relationship a relate identity key names in this workspace, if any. */
  relationshipByIdentity(identityKey: string): string | undefined
  recordVersion(
    entry: Partial<VersionEntry> & Pick<VersionEntry, 'record_id' | 'version' | 'lifecycle'>,
  ): void
  receipt(id: string, version: number): Receipt
  /** Writes a memory (a new node when `node` is null), logs the version, and returns it as the graph holds it. */
  saveMemory(node: number | null, record: Omit<MemoryRecord, 'id'>, log?: Partial<VersionEntry>): MemoryRecord
  /** The same for a relationship (created from `ends.start` to `ends.end` when `rel` is null). */
  saveRelationship(
    rel: number | null,
    ends: { start: number; end: number } | null,
    record: Omit<RelationshipRecord, 'id'>,
    log?: Partial<VersionEntry>,
  ): RelationshipRecord
}

/** What a mutation needs of the engine: one atomic write transaction with its ledger writer. */
export interface MutationHost {
  transact<T>(
    workspaceId: string,
    fn: (tx: Transaction, store: GraphStore, ledger: LedgerWriter) => T,
    options?: { sessionId?: string | undefined; label?: string | undefined },
  ): Promise<{ value: T }>
  now(): number
}

/**
 * The idempotent mutation transaction: one transaction writes the records, their version log and the receipt,
 * so a retry with the same key replays the stored answer and a different request under it is a conflict.
 */
export class MutationRunner {
  constructor(
    private readonly host: MutationHost,
    private readonly receipts: ReceiptLedger,
    private readonly versions: VersionLedger,
  ) {}

  async run(
    parsed: ParsedRequest,
    context: MemoryContext,
    session: string | undefined,
    apply: (m: Mutation) => [string, object],
  ): Promise<MemoryResponse> {
    const workspace = context.workspace_id
    const keyHash = sha256(parsed.idempotencyKey as string)
    const requestHash = sha256(
      canonicalJson({
        contract_version: CONTRACT_VERSION,
        operation: parsed.operation,
        input: parsed.rawInput,
      }),
    )
    const { value } = await this.host.transact(
      workspace,
      (tx, _store, ledger) => {
        // Checked inside the write transaction: concurrent retries of one key serialise here.
        const prior = this.receipts.get(workspace, keyHash)
        if (prior !== undefined) {
          if (prior.request_hash !== requestHash)
            throw memoryError(
              'IDEMPOTENCY_CONFLICT',
              'this idempotency key was used for a different request in this workspace',
            )
          ledger.write(this.receipts.name, { replay: true })
          return replayed(prior.response)
        }
        const now = new Date(this.host.now()).toISOString()
        // A saved memory or relationship gets its version-log entry; both kinds go through here.
        const logVersion = <R extends MemoryRecord | RelationshipRecord>(
          saved: R,
          log: Parameters<Mutation['recordVersion']>[0] extends infer E ? Partial<E> : never,
        ): R => {
          m.recordVersion({ record_id: saved.id, version: saved.version, lifecycle: saved.lifecycle, ...log })
          return saved
        }
        const m: Mutation = {
          context,
          now,
          operation: parsed.operation,
          tx,
          relationshipByIdentity: (identityKey) =>
            this.versions.relationshipByIdentity(workspace, identityKey),
          recordVersion: (entry) =>
            ledger.write(this.versions.name, {
              workspace,
              recorded_at: now,
              operation: parsed.operation,
              actor_id: context.actor_id,
              agent_id: context.agent_id,
              session_id: context.session_id,
              correlation_id: context.correlation_id,
              identity_key: null,
              evidence_source_ids: [],
              policy_decisions: [],
              reason: null,
              ...entry,
            } satisfies VersionEntry),
          receipt: (id, version) => ({
            committed_id: id,
            committed_version: version,
            audit_correlation_id: context.correlation_id,
            replayed: false,
          }),
          saveMemory: (node, record, log = {}) => {
            const id = node ?? createMemory(tx, record)
            if (node !== null) writeMemory(tx, node, record)
            return logVersion(readMemory(tx, id) as MemoryRecord, log)
          },
          saveRelationship: (rel, ends, record, log = {}) => {
            const id = rel ?? createRelationship(tx, ends?.start as number, ends?.end as number, record)
            if (rel !== null) writeRelationship(tx, rel, record)
            const saved = readRelationship(tx, id) as RelationshipRecord
            return logVersion(saved, { identity_key: saved.identity_key, ...log })
          },
        }
        const [operation, result] = apply(m)
        const response = envelope(operation, result)
        ledger.write(this.receipts.name, {
          workspace,
          key_hash: keyHash,
          request_hash: requestHash,
          response,
        })
        return response
      },
      { sessionId: session, label: `memory ${parsed.operation}` },
    )
    return value
  }
}
