/**
 * Parity between the primary and the reference, computed by the service (spec, rollback step 4): each side
 * states a snapshot over the same stated inputs — a content digest per record and per relationship (raw form
 * and revision), the full-text results of a query set, access decisions of a set of subjects on a set of
 * records, its index generations — and which of the primary's delivered writes it holds no receipt for. The
 * primary compares the two dimension by dimension; the report names what differs.
 */
import { createHash } from 'node:crypto'
import type { GraphReader } from '../graph/types.js'
import { canonicalize } from '../stix/canonical.js'
import { P } from '../stix/mapping.js'
import { type AccessSubject, accessAllowed } from './access-decision.js'
import { heldRecords } from './corpus.js'
import type { DimensionResult, ParityDimension, ParityReport } from './evidence-state.js'
import type { RefState } from './state.js'

export interface ParityInputs {
  /** Full-text objectives run on the canonical workspace on both sides. */
  queries: string[]
  subjects: AccessSubject[]
  /** Records whose access decisions are compared, for every subject. */
  record_ids: string[]
  /** Hashed idempotency keys the reference must hold receipts for. */
  keys: string[]
}

export interface ParitySnapshot {
  high_water_sequence: number
  records: Record<string, string>
  relationships: Record<string, string>
  full_text: { query: string; hits: [string, string][] }[]
  access: [string, string, boolean][]
  index_generations: { records: number; relationships: number; full_text_documents: number }
  receipts_missing: string[]
}

/** What a side needs to state its snapshot. */
export interface SnapshotPort {
  state: RefState
  readGraph<T>(fn: (reader: GraphReader) => T): Promise<T>
  /** Full-text hits (graph node ids, scores) of an objective on the canonical workspace; [] for no seed. */
  fullText(objective: string): Promise<{ node_id: string; score: number }[]>
  /** Documents of the canonical workspace's full-text index, once it has caught up with the graph. */
  fullTextDocuments(): Promise<number>
}

/** Differences listed per dimension at the most. */
const MISMATCH_LISTED = 20
const digest = (value: unknown) => createHash('sha256').update(canonicalize(value)).digest('hex')
/** Scores compared to nine decimals: the same index over the same documents gives the same score. */
const score = (value: number) => value.toFixed(9)

export async function paritySnapshot(port: SnapshotPort, inputs: ParityInputs): Promise<ParitySnapshot> {
  const documents = await port.fullTextDocuments()
  const hits = new Map<string, { node_id: string; score: number }[]>()
  for (const query of inputs.queries) hits.set(query, await port.fullText(query))
  return port.readGraph((reader) => {
    const held = heldRecords(reader)
    const byId = new Map(held.map((r) => [r.id, r]))
    const records: Record<string, string> = {}
    const relationships: Record<string, string> = {}
    for (const r of held)
      (r.kind === 'node' ? records : relationships)[r.id] = digest({ raw: r.raw, revision: r.revision })
    const idKey = reader.names.lookup(P.id)
    const recordIdOfNode = (nodeId: string) => {
      const gid = Number(nodeId.replace(/^node--/, ''))
      const id = idKey < 0 ? undefined : reader.node(gid)?.props.get(idKey)
      return typeof id === 'string' ? id : `unmapped:${nodeId}`
    }
    const fullText = inputs.queries.map((query) => ({
      query,
      hits: (hits.get(query) ?? [])
        .map((h): [string, string] => [recordIdOfNode(h.node_id), score(h.score)])
        .sort((a, b) => (a[1] !== b[1] ? (a[1] < b[1] ? 1 : -1) : a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)),
    }))
    const access: [string, string, boolean][] = []
    for (const subject of inputs.subjects)
      for (const id of inputs.record_ids) {
        const record = byId.get(id)
        access.push([subject.subject_id, id, record !== undefined && accessAllowed(subject, record.raw)])
      }
    return {
      high_water_sequence: port.state.nextSequence - 1,
      records,
      relationships,
      full_text: fullText,
      access,
      index_generations: {
        records: Object.keys(records).length,
        relationships: Object.keys(relationships).length,
        full_text_documents: documents,
      },
      receipts_missing: inputs.keys.filter((key) => !port.state.receipts.has(key)),
    }
  })
}

function digestsDimension(ours: Record<string, string>, theirs: Record<string, string>): DimensionResult {
  const ids = [...new Set([...Object.keys(ours), ...Object.keys(theirs)])].sort()
  const differing = ids.filter((id) => ours[id] !== theirs[id])
  return dimension(ids.length, differing)
}

function dimension(compared: number, differing: string[]): DimensionResult {
  return { ok: differing.length === 0, compared, mismatches: differing.slice(0, MISMATCH_LISTED) }
}

/** The report of one comparison; `verified` when every dimension agrees. */
export function compareSnapshots(
  ours: ParitySnapshot,
  theirs: ParitySnapshot,
  computedAt: string,
  keysAsked: number,
): ParityReport {
  const theirText = new Map(theirs.full_text.map((q) => [q.query, JSON.stringify(q.hits)]))
  const theirAccess = new Map(theirs.access.map(([s, r, allowed]) => [`${s} ${r}`, allowed]))
  const generations = Object.keys(ours.index_generations) as (keyof ParitySnapshot['index_generations'])[]
  const dimensions: Record<ParityDimension, DimensionResult> = {
    records: digestsDimension(ours.records, theirs.records),
    relationships: digestsDimension(ours.relationships, theirs.relationships),
    full_text: dimension(
      ours.full_text.length,
      ours.full_text.filter((q) => theirText.get(q.query) !== JSON.stringify(q.hits)).map((q) => q.query),
    ),
    access: dimension(
      ours.access.length,
      ours.access
        .filter(([s, r, allowed]) => theirAccess.get(`${s} ${r}`) !== allowed)
        .map(([s, r]) => `${s} on ${r}`),
    ),
    index_generations: dimension(
      generations.length,
      generations
        .filter((g) => ours.index_generations[g] !== theirs.index_generations[g])
        .map(
          (g) => `${g}: ${ours.index_generations[g]} here, ${theirs.index_generations[g]} at the reference`,
        ),
    ),
    replay_receipts: dimension(keysAsked, theirs.receipts_missing),
  }
  return {
    verified: Object.values(dimensions).every((d) => d.ok),
    high_water_sequence: ours.high_water_sequence,
    reference_high_water_sequence: theirs.high_water_sequence,
    computed_at: computedAt,
    dimensions,
  }
}
