import type { GraphReader, NodeRecord, PropertyValue } from '../graph/types.js'
import { ownValue } from '../own-key.js'

/** Node ids as Cypher results and the explorer print them. */
export const nodeElementId = (id: number): string => `node--${id}`

/** `node--12` -> 12; anything else -> null. */
export function parseNodeElementId(value: string): number | null {
  const m = /^node--(\d+)$/.exec(value)
  return m?.[1] === undefined ? null : Number(m[1])
}

function prop(reader: GraphReader, node: NodeRecord, key: string): PropertyValue | undefined {
  const id = reader.names.lookup(key)
  return id < 0 ? undefined : node.props.get(id)
}

/** Rejected and tombstoned records are never seeds (FACTS §4 candidate rule). */
export function isSearchable(reader: GraphReader, node: NodeRecord): boolean {
  const status = prop(reader, node, 'status')
  if (status === 'rejected' || status === 'tombstoned') return false
  return prop(reader, node, 'tombstoned') !== true
}

/** The searchable text of a node: its labels and every string and string-list property value. */
export function nodeText(reader: GraphReader, node: NodeRecord): string {
  const parts: string[] = []
  for (const label of node.labels) parts.push(reader.names.name(label))
  for (const value of node.props.values()) {
    if (typeof value === 'string') parts.push(value)
    else if (Array.isArray(value)) for (const v of value) if (typeof v === 'string') parts.push(v)
  }
  return parts.join('\n')
}

/** FACTS §4 status signal; absent or unknown status counts 0. */
const STATUS_SIGNAL: Readonly<Record<string, number>> = {
  validated: 1,
  exportable: 1,
  exported: 1,
  needs_review: 0.7,
  needs_evidence: 0.6,
  candidate: 0.5,
}

export interface NodeSignals {
  /** Relationship count (in + out). */
  degree: number
  /** `confidence` clamped to 0..1; 0.5 when absent or not a number. */
  confidence: number
  status: number
  /** The node's `evidence_refs` (string or string list), in order. */
  sourceRefs: string[]
}

export function nodeSignals(reader: GraphReader, node: NodeRecord): NodeSignals {
  const c = prop(reader, node, 'confidence')
  const confidence = typeof c === 'number' && Number.isFinite(c) ? Math.min(1, Math.max(0, c)) : 0.5
  const s = prop(reader, node, 'status')
  const refs = prop(reader, node, 'evidence_refs')
  return {
    degree: node.out.length + node.in.length,
    confidence,
    status: typeof s === 'string' ? (ownValue(STATUS_SIGNAL, s.trim().toLowerCase()) ?? 0) : 0,
    sourceRefs:
      typeof refs === 'string'
        ? [refs]
        : Array.isArray(refs)
          ? refs.filter((r): r is string => typeof r === 'string')
          : [],
  }
}

/** Node ids whose text or signals a commit may have changed (relationship ops change degree only). */
export function touchedNodes(ops: readonly { op: string; id: number; start?: number; end?: number }[]): {
  nodes: Set<number>
  deleted: Set<number>
  degreeChanged: boolean
} {
  const nodes = new Set<number>()
  const deleted = new Set<number>()
  let degreeChanged = false
  for (const op of ops) {
    switch (op.op) {
      case 'createNode':
      case 'setNodeProperty':
      case 'removeNodeProperty':
      case 'addLabel':
      case 'removeLabel':
        nodes.add(op.id)
        deleted.delete(op.id)
        break
      case 'deleteNode':
        deleted.add(op.id)
        nodes.delete(op.id)
        degreeChanged = true
        break
      case 'createRelationship':
      case 'deleteRelationship':
        degreeChanged = true
        break
    }
  }
  return { nodes, deleted, degreeChanged }
}
