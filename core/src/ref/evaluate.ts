/**
 * One write request evaluated against the canonical graph: the limits it must respect, the items it
 * stands for (a single create/update/delete is a one-item atomic batch), the canonical response, and what
 * the outbox records about it (ordering key, touched records, audit rows).
 */
import { type AuditNote, FAILURE_OF, type ItemResult, WriteEvaluator, type WriteResponse } from './apply.js'
import { type CanonicalGraph, endpointIds, isRelationshipRecord, recordIdOf } from './records.js'
import type { BulkItem, RefWriteRequest } from './request.js'
import type { AuditGroup, StoredResponse } from './state.js'

export interface Evaluated {
  response: StoredResponse
  applied: number
  failed: number
  /** Nothing may commit (an atomic batch or single operation failed). */
  abort: boolean
  audits: AuditNote[]
}

/** The operations of a request as bulk items, in request order. */
export function itemsOf(request: RefWriteRequest): BulkItem[] {
  const op = request.operation
  switch (op.operation) {
    case 'bulk':
      return op.request.operations
    case 'create':
      return [{ operation: 'create', record: op.request.record }]
    case 'update':
      return [{ operation: 'update', ...op.request }]
    case 'delete':
      return [{ operation: 'delete', ...op.request }]
    case 'merge':
      return []
  }
}

export function limitProblem(request: RefWriteRequest, max: number): string | null {
  const op = request.operation
  const count =
    op.operation === 'bulk'
      ? op.request.operations.length
      : op.operation === 'merge'
        ? op.request.source_ids.length + 1
        : 1
  if (count > max) return `the write carries ${count} operations; at most ${max} are allowed`
  // Default ids (`bulk-item-<i>`) are unique among themselves: only an explicit one can collide.
  if (op.operation === 'bulk' && op.request.operations.some((item) => item.operation_id !== undefined)) {
    const ids = new Set<string>()
    for (const [i, item] of op.request.operations.entries()) {
      const id = item.operation_id ?? `bulk-item-${i}`
      if (ids.has(id)) return `operation_id ${id} is not unique`
      ids.add(id)
    }
  }
  return null
}

export function evaluateWrite(
  request: RefWriteRequest,
  graph: CanonicalGraph,
  envelope: (outcome: StoredResponse['outcome']) => StoredResponse,
): Evaluated {
  const evaluator = new WriteEvaluator(graph)
  const op = request.operation
  const success = (response: WriteResponse) => envelope({ status: 'success', response })
  if (op.operation === 'merge') {
    const merged = evaluator.merge(op.request)
    if ('failure' in merged)
      return {
        response: envelope({ status: 'failure', error: merged.failure }),
        applied: 0,
        failed: 1,
        abort: true,
        audits: [],
      }
    return {
      response: success({ response: 'merge', data: merged.data }),
      applied: 1,
      failed: 0,
      abort: false,
      audits: evaluator.audits,
    }
  }
  const items = itemsOf(request)
  const atomic = op.operation !== 'bulk' || op.request.atomic
  const results: ItemResult[] = []
  let failedAt = -1
  for (const [i, item] of items.entries()) {
    if (failedAt >= 0) {
      results.push(abortedResult(item, item.operation_id ?? `bulk-item-${i}`))
      continue
    }
    const result = evaluator.item(item, item.operation_id ?? `bulk-item-${i}`)
    results.push(result)
    if (atomic && result.status !== 'applied') failedAt = i
  }
  if (atomic && failedAt >= 0) {
    // Nothing of the batch commits: applied items before the failure flip to aborted.
    for (const [i, result] of results.entries())
      if (i !== failedAt) Object.assign(result, { status: 'aborted', after_revision: null })
    const failed = results[failedAt] as ItemResult
    const response =
      op.operation === 'bulk'
        ? success({ response: 'bulk', data: { results } })
        : envelope({
            status: 'failure',
            error: {
              code: FAILURE_OF[failed.status as 'conflict' | 'rejected' | 'retryable'],
              message: failed.diagnostic ?? 'the write failed',
              retryable: failed.status === 'retryable',
            },
          })
    return { response, applied: 0, failed: 1, abort: true, audits: [] }
  }
  const applied = results.filter((r) => r.status === 'applied').length
  const response =
    op.operation === 'bulk'
      ? success({ response: 'bulk', data: { results } })
      : success({
          response: 'write',
          data: {
            id: results[0]?.id as string,
            revision: results[0]?.after_revision ?? results[0]?.before_revision ?? 0,
          },
        })
  return { response, applied, failed: results.length - applied, abort: false, audits: evaluator.audits }
}

function abortedResult(item: BulkItem, operationId: string): ItemResult {
  return {
    operation_id: operationId,
    id: 'id' in item ? item.id : (recordIdOf(item.record) ?? null),
    status: 'aborted',
    before_revision: null,
    after_revision: null,
    diagnostic: null,
  }
}

/** FACTS §8 ordering keys: record id, merge target (the survivor), or the bulk transaction. */
export function orderingKey(request: RefWriteRequest, sequence: number): string {
  const op = request.operation
  switch (op.operation) {
    case 'create':
      return recordIdOf(op.request.record) ?? ''
    case 'update':
    case 'delete':
      return op.request.id
    case 'merge':
      return op.request.target_id
    case 'bulk':
      return `transaction--${String(sequence).padStart(20, '0')}`
  }
}

/** Records a write may touch; deletes cascade and merges redirect anything, so both are barriers. */
export function touchedIds(request: RefWriteRequest): string[] {
  const op = request.operation
  if (op.operation === 'merge' || op.operation === 'delete') return ['*']
  const items = itemsOf(request)
  const ids = new Set<string>()
  for (const item of items) {
    if (item.operation === 'delete') return ['*']
    if (item.operation !== 'create') {
      ids.add(item.id)
      continue
    }
    const id = recordIdOf(item.record)
    if (id !== undefined) ids.add(id)
    if (isRelationshipRecord(item.record)) {
      const { source, target } = endpointIds(item.record)
      if (typeof source === 'string') ids.add(source)
      if (typeof target === 'string') ids.add(target)
    }
  }
  return [...ids]
}

export function auditGroup(
  notes: AuditNote[],
  keyHash: string,
  context: RefWriteRequest['context'],
): AuditGroup {
  return {
    key: keyHash,
    correlation_id: context.correlation_id,
    source_offset: context.access.attributes.source_offset ?? null,
    rows: notes,
  }
}
