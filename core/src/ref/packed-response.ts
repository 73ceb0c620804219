/**
 * The canonical answer of a bulk write, stored compactly. A bulk answer lists one result per item (5,000 for
 * the largest writes) as objects with the same six keys; as stored in the receipt (the WAL, checkpoints and
 * memory) the list becomes columns: ids, one status letter per item, run-length revisions, the operation ids
 * only when they are not the default `bulk-item-<i>`, and the few diagnostics by position. Unpacking gives back
 * exactly the answer that was given (a replay answers it verbatim); other answers are stored as they are.
 */
import type { ItemResult, ItemStatus } from './apply.js'
import type { StoredResponse } from './state.js'

/** Runs of equal values: [value, count, value, count, ...]. */
type Runs = (number | null)[]

export interface PackedResults {
  /** Item count. */
  n: number
  /** Operation ids; null when every one is the default `bulk-item-<i>`. */
  operation_ids: string[] | null
  ids: (string | null)[]
  /** One letter per item (see LETTER). */
  statuses: string
  before: Runs
  after: Runs
  /** Diagnostics by item position; absent ones are null. */
  diagnostics: Record<string, string>
}

const LETTER: Record<ItemStatus, string> = {
  applied: 'a',
  conflict: 'c',
  rejected: 'r',
  retryable: 't',
  aborted: 'x',
}
const STATUS_OF = Object.fromEntries(
  Object.entries(LETTER).map(([status, letter]) => [letter, status]),
) as Record<string, ItemStatus>

function runs(values: (number | null)[]): Runs {
  const out: Runs = []
  for (const value of values) {
    const at = out.length - 2
    if (at >= 0 && out[at] === value) (out[at + 1] as number)++
    else out.push(value, 1)
  }
  return out
}

function expand(encoded: Runs, n: number): (number | null)[] {
  const out: (number | null)[] = []
  for (let i = 0; i + 1 < encoded.length; i += 2)
    for (let k = 0; k < (encoded[i + 1] as number); k++) out.push(encoded[i] as number | null)
  return out.length === n ? out : Array.from({ length: n }, (_, i) => out[i] ?? null)
}

type BulkData = { results?: ItemResult[]; packed?: PackedResults }
const bulkData = (response: StoredResponse): BulkData | null => {
  const outcome = response.outcome
  if (outcome.status !== 'success') return null
  const body = outcome.response as { response?: string; data?: BulkData } | null
  return body?.response === 'bulk' && body.data !== undefined ? body.data : null
}

export function packResponse(response: StoredResponse): StoredResponse {
  const results = bulkData(response)?.results
  if (results === undefined) return response
  const defaultIds = results.every((r, i) => r.operation_id === `bulk-item-${i}`)
  const diagnostics: Record<string, string> = {}
  let statuses = ''
  for (const [i, r] of results.entries()) {
    statuses += LETTER[r.status]
    if (r.diagnostic !== null) diagnostics[i] = r.diagnostic
  }
  const packed: PackedResults = {
    n: results.length,
    operation_ids: defaultIds ? null : results.map((r) => r.operation_id),
    ids: results.map((r) => r.id),
    statuses,
    before: runs(results.map((r) => r.before_revision)),
    after: runs(results.map((r) => r.after_revision)),
    diagnostics,
  }
  return { ...response, outcome: { status: 'success', response: { response: 'bulk', data: { packed } } } }
}

/** The answer as it was given; an answer stored unpacked (or not a bulk one) is returned as it is. */
export function unpackResponse(response: StoredResponse): StoredResponse
export function unpackResponse(response: StoredResponse | null): StoredResponse | null
export function unpackResponse(response: StoredResponse | null): StoredResponse | null {
  const packed = response === null ? undefined : bulkData(response)?.packed
  if (response === null || packed === undefined) return response
  const before = expand(packed.before, packed.n)
  const after = expand(packed.after, packed.n)
  const results: ItemResult[] = []
  for (let i = 0; i < packed.n; i++)
    results.push({
      operation_id: packed.operation_ids?.[i] ?? `bulk-item-${i}`,
      id: packed.ids[i] ?? null,
      status: STATUS_OF[packed.statuses[i] as string] ?? 'aborted',
      before_revision: before[i] ?? null,
      after_revision: after[i] ?? null,
      diagnostic: packed.diagnostics[i] ?? null,
    })
  return { ...response, outcome: { status: 'success', response: { response: 'bulk', data: { results } } } }
}
