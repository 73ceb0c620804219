/**
 * The reconstruction corpus and the rebuild of a clean reference from it. The corpus carries what the
 * projector compares, so a reference rebuilt from it answers the next projected writes exactly as the
 * primary did: each record's raw form (access metadata and merge tombstones — `x_service_merged_ids` — are
 * part of it), its revision, and the receipts of the writes the outbox lists, so a write the corpus already
 * contains is answered from its receipt when the projector sends it again.
 */
import type { Transaction } from '../graph/transaction.js'
import type { GraphReader, PropertyValue } from '../graph/types.js'
import type { LedgerWriter } from '../kernel/ledger.js'
import { P } from '../stix/mapping.js'
import { RefErrors } from './codes.js'
import { transactionId } from './identity.js'
import {
  CanonicalGraph,
  endpointIds,
  isRelationshipRecord,
  type RawRecord,
  REVISION_KEY,
  recordIdOf,
  recordTypeOf,
} from './records.js'
import { REF_LEDGER, type RefLedgerEntry, type RefState, type StoredResponse } from './state.js'

export interface CorpusReceipt {
  key: string
  fingerprint: string
  response: StoredResponse
}

export interface Corpus {
  high_water_sequence: number
  /** Raw records sorted by id (entities and relationships). */
  records: RawRecord[]
  /** Revision of each record, by id. */
  revisions: Record<string, number>
  /** Receipts of the writes the outbox lists (delivered within its retained window, pending, quarantined). */
  receipts: CorpusReceipt[]
}

/** A canonical record as the graph holds it: its raw form and revision. */
export interface HeldRecord {
  id: string
  kind: 'node' | 'relationship'
  revision: number
  raw: RawRecord
}

/** Every canonical record of the workspace, sorted by id. */
export function heldRecords(reader: GraphReader): HeldRecord[] {
  const idKey = reader.names.lookup(P.id)
  const rawKey = reader.names.lookup(P.raw)
  const revKey = reader.names.lookup(REVISION_KEY)
  if (idKey < 0 || rawKey < 0 || revKey < 0) return []
  const out: HeldRecord[] = []
  const take = (kind: HeldRecord['kind'], props: ReadonlyMap<number, PropertyValue> | undefined) => {
    const id = props?.get(idKey)
    const raw = props?.get(rawKey)
    const revision = props?.get(revKey)
    if (typeof id === 'string' && typeof raw === 'string' && revision !== undefined)
      out.push({ id, kind, revision: Number(revision), raw: JSON.parse(raw) as RawRecord })
  }
  for (const node of reader.allNodeIds()) take('node', reader.node(node)?.props)
  for (const rel of reader.allRelIds()) take('relationship', reader.relProps(rel))
  out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  return out
}

export function readCorpus(reader: GraphReader, state: RefState): Corpus {
  const held = heldRecords(reader)
  const receipts: CorpusReceipt[] = []
  // Every write the outbox still lists: undelivered ones are answered from them when projected again, and
  // delivered ones are what the parity report's replay dimension asks the reference about.
  for (const entry of state.entries.values()) {
    const receipt = state.receipts.get(entry.key)
    if (receipt !== undefined)
      receipts.push({ key: receipt.key, fingerprint: receipt.fingerprint, response: receipt.response })
  }
  return {
    high_water_sequence: state.nextSequence - 1,
    records: held.map((r) => r.raw),
    revisions: Object.fromEntries(held.map((r) => [r.id, r.revision])),
    receipts,
  }
}

/** What is wrong with a corpus before anything is loaded (null: it loads). */
function corpusProblem(corpus: Corpus): string | null {
  const seen = new Set<string>()
  for (const [i, record] of corpus.records.entries()) {
    const id = recordIdOf(record)
    if (id === undefined) return `records[${i}] has no id`
    if (recordTypeOf(record) === undefined) return `record ${id} has no type`
    if (seen.has(id)) return `record ${id} appears twice`
    seen.add(id)
    const revision = corpus.revisions[id]
    if (!Number.isInteger(revision) || (revision as number) < 1)
      return `revisions has no positive integer revision for ${id}`
  }
  for (const id of Object.keys(corpus.revisions))
    if (!seen.has(id)) return `revisions names ${id}, which is not among the records`
  const entities = new Set(corpus.records.filter((r) => !isRelationshipRecord(r)).map((r) => recordIdOf(r)))
  for (const record of corpus.records) {
    if (!isRelationshipRecord(record)) continue
    const { source, target } = endpointIds(record)
    for (const end of [source, target])
      if (typeof end !== 'string' || !entities.has(end))
        return `relationship ${recordIdOf(record)}: endpoint ${String(end)} is not an entity among the records`
  }
  return null
}

/**
 * Loads a corpus into an empty canonical workspace inside one write transaction: entities, then
 * relationships, each with its revision; the receipts become receipts of this store.
 */
export function loadCorpus(
  tx: Transaction,
  ledger: LedgerWriter,
  corpus: Corpus,
  relIndex: ReadonlyMap<string, number>,
): { records: number; receipts: number } {
  const problem = corpusProblem(corpus)
  if (problem !== null) throw RefErrors.reconstructionInvalid(problem)
  const graph = new CanonicalGraph(tx, relIndex)
  const existing = [...graph.nodeRecords()].length + relIndex.size
  if (existing > 0) throw RefErrors.reconstructionTargetNotEmpty(existing)
  const relationships: RawRecord[] = []
  for (const record of corpus.records) {
    const id = recordIdOf(record) as string
    if (isRelationshipRecord(record)) relationships.push(record)
    else graph.createNode(id, record, corpus.revisions[id])
  }
  for (const record of relationships) {
    const id = recordIdOf(record) as string
    const { source, target } = endpointIds(record)
    const start = graph.nodeGidOf(source as string)
    const end = graph.nodeGidOf(target as string)
    if (start === undefined || end === undefined)
      throw RefErrors.reconstructionInvalid(`relationship ${id}: an endpoint is missing`)
    graph.createRelationship(id, record, start, end, corpus.revisions[id])
  }
  for (const receipt of corpus.receipts)
    ledger.write(REF_LEDGER, {
      k: 'image_receipt',
      receipt: { ...receipt, sequence: 0, transaction_id: transactionId(receipt.key) },
    } satisfies RefLedgerEntry)
  return { records: corpus.records.length, receipts: corpus.receipts.length }
}
