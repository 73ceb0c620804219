/**
 * The outbox request of a bulk create, stored once. A projected write keeps its request for the projector,
 * and that request used to go into the WAL beside the graph ops of the same commit, which carry every record
 * again (each created record's raw JSON is a property): a 5,000-record bulk write logged its records twice.
 * When the request is a bulk of plain creates that all applied as the first ops of their transaction, the
 * commit entry logs only the request's shell and where its records are (`RequestByOps`); replay rebuilds
 * the request from the ops of the same WAL record. While the process runs, the entry carries the request
 * itself under a symbol key, which JSON leaves out, so publishing reads it as before.
 */
import { EngineError } from '../errors.js'
import type { CommitOp } from '../graph/commit.js'
import { P } from '../stix/mapping.js'
import type { RefWriteRequest } from './request.js'

/** The request a commit entry stands for, in memory only (a symbol key is no part of its JSON). */
export const LIVE_REQUEST: unique symbol = Symbol('ref live request')

/** A bulk create's request as its commit entry logs it: `operations` empty, each one the op at its index. */
export interface RequestByOps {
  /** The stored request with `operation.request.operations` empty. */
  shell: RefWriteRequest
  /** The transaction's ops 0..count-1 created the records of operations 0..count-1, in order. */
  count: number
}

/** Item keys of the form that is rebuilt exactly: `{operation: 'create', record}`, in this order. */
const PLAIN_CREATE = ['operation', 'record'] as const

/**
 * The compact form of `stored`, or null when it must be logged whole: not a bulk of plain creates, not the
 * first work of its transaction, or not one op per operation (an item failed).
 */
export function requestByOps(
  stored: RefWriteRequest,
  opsBefore: number,
  opsAfter: number,
): RequestByOps | null {
  const op = stored.operation
  if (op.operation !== 'bulk' || opsBefore !== 0) return null
  const items = op.request.operations
  if (opsAfter !== items.length) return null
  for (const item of items) {
    if (item.operation !== 'create') return null
    const keys = Object.keys(item)
    if (keys.length !== 2 || keys[0] !== PLAIN_CREATE[0] || keys[1] !== PLAIN_CREATE[1]) return null
  }
  return {
    shell: { ...stored, operation: { ...op, request: { ...op.request, operations: [] } } },
    count: items.length,
  }
}

/** The request `ref` stands for, its records read back from the raw JSON the create ops carry. */
export function requestFromOps(ref: RequestByOps, ops: readonly CommitOp[] | undefined): RefWriteRequest {
  const op = ref.shell.operation
  if (op.operation !== 'bulk') throw corrupt('its shell is not a bulk write')
  if (ops === undefined || ops.length < ref.count)
    throw corrupt(`it names ${ref.count} create ops; the record holds ${ops?.length ?? 0}`)
  const operations: { operation: 'create'; record: Record<string, unknown> }[] = new Array(ref.count)
  for (let i = 0; i < ref.count; i++) {
    const created = ops[i] as CommitOp
    const raw =
      created.op === 'createNode' || created.op === 'createRelationship' ? created.props[P.raw] : undefined
    if (typeof raw !== 'string') throw corrupt(`op ${i} is not the create of a reference record`)
    operations[i] = { operation: 'create', record: JSON.parse(raw) as Record<string, unknown> }
  }
  return { ...ref.shell, operation: { ...op, request: { ...op.request, operations } } }
}

const corrupt = (why: string) =>
  new EngineError('STORAGE_RECOVERY_FAILED', `a reference commit's request cannot be rebuilt: ${why}`)
