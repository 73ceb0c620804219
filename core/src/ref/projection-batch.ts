/**
 * One projection request and how its answer decides entries. A single entry goes to the write route; a run
 * of consecutive entries goes to the reference's batch form (`POST <write route>/batch`, body
 * `{writes: [request, ...]}`), which answers `{ok: true, results: [...]}` in request order: each result
 * either the status and body the write route would have answered for that entry, or `skipped` once an
 * earlier entry of the batch was not applied. A 404 or 405 means the reference has no batch form; a 400 or
 * 413 to the batch as a whole means it carries more than the reference takes (each entry's own faults are
 * answered inside the results).
 */
import { canonicalize } from '../stix/canonical.js'
import { unpackResponse } from './packed-response.js'
import type { ReferenceAnswer, ReferenceClient } from './reference-client.js'
import type { EntryStatus, OutboxEntry } from './state.js'

export type Outcome = { sequence: number; status: EntryStatus; diagnostic: string | null }
type Decision = Omit<Outcome, 'sequence'>

export type Sent =
  /** Answers of the entries in order; entries the reference skipped have none. */
  | { kind: 'answers'; answers: ReferenceAnswer[] }
  /** The request as a whole failed: transport error, timeout, or the batch itself was rejected. */
  | { kind: 'failed'; outcome: Decision }
  | { kind: 'unsupported' }
  /** The batch as a whole was refused as too large (400 over the reference's batch bound, or 413). */
  | { kind: 'too_large' }

/** A batch result as the reference's batch route answers it. */
export type BatchResult = { result: 'answered'; status: number; body: unknown } | { result: 'skipped' }

const DIAGNOSTIC_MAX = 512
export const clip = (text: string) => (text.length > DIAGNOSTIC_MAX ? text.slice(0, DIAGNOSTIC_MAX) : text)

const codeOf = (body: unknown): string =>
  (body as { error?: { code?: string } } | null)?.error?.code ??
  (body as { outcome?: { error?: { code?: string } } } | null)?.outcome?.error?.code ??
  'unknown'

export async function sendUnit(
  reference: ReferenceClient,
  entries: OutboxEntry[],
  timeoutMs: number,
): Promise<Sent> {
  const signal = AbortSignal.timeout(timeoutMs)
  try {
    const first = entries[0] as OutboxEntry
    if (entries.length === 1 || reference.postBatch === undefined)
      return { kind: 'answers', answers: [await reference.post(first.request, signal)] }
    const answer = await reference.postBatch(
      entries.map((e) => e.request),
      signal,
    )
    if (answer.status === 404 || answer.status === 405) return { kind: 'unsupported' }
    if (answer.status === 400 || answer.status === 413) return { kind: 'too_large' }
    const results = (answer.body as { results?: unknown } | null)?.results
    if (answer.status !== 200 || !Array.isArray(results))
      return {
        kind: 'failed',
        outcome: {
          status: 'pending',
          diagnostic: clip(`reference rejected the batch: HTTP ${answer.status} ${codeOf(answer.body)}`),
        },
      }
    const answers: ReferenceAnswer[] = []
    for (const result of (results as BatchResult[]).slice(0, entries.length)) {
      if (result?.result !== 'answered') break
      answers.push({ status: result.status, body: result.body })
    }
    if (answers.length === 0)
      return {
        kind: 'failed',
        outcome: { status: 'pending', diagnostic: 'reference answered the batch without a first result' },
      }
    return { kind: 'answers', answers }
  } catch (error) {
    const name = (error as Error).name
    const reason = name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'transport error'
    return {
      kind: 'failed',
      outcome: { status: 'pending', diagnostic: clip(`${reason}: ${(error as Error).message}`) },
    }
  }
}

/** Equal to the canonical response -> delivered; a rejection -> pending; another success -> quarantined. */
export function compareAnswer(entry: OutboxEntry, answer: ReferenceAnswer): Outcome {
  const sequence = entry.sequence
  const outcome = (answer.body as { outcome?: { status?: string; response?: unknown } } | null)?.outcome
  if (answer.status !== 200 || outcome?.status !== 'success')
    return {
      sequence,
      status: 'pending',
      diagnostic: clip(`reference rejected: HTTP ${answer.status} ${codeOf(answer.body)}`),
    }
  const canonical = unpackResponse(entry.response)?.outcome
  const expected = canonical?.status === 'success' ? canonical.response : undefined
  if (canonicalize(outcome.response) === canonicalize(expected))
    return { sequence, status: 'delivered', diagnostic: null }
  return {
    sequence,
    status: 'quarantined',
    diagnostic: clip('reference response differs from the canonical response'),
  }
}
