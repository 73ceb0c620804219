import { EngineError } from '../errors.js'
import type { GraphStore } from '../graph/store.js'
import type { PropertyValue } from '../graph/types.js'
import type { NodeState, RecordHistory, RelState } from '../history/record-history.js'
import type { ProjectionBudget } from './budget.js'
import { type TypedProperty, typedProperty } from './typed-property.js'

export type BoundaryView =
  | { kind: 'current' }
  | { kind: 'snapshot'; boundary_id: string; transaction_id: string | null; at: string }
  | { kind: 'timeshot'; boundary_id: string; transaction_id: string | null; at: string }

export interface ProjectedNode {
  id: string
  version_id: string
  version: number
  labels: string[]
  properties: Record<string, TypedProperty>
  status: string
  confidence: number | null
  first_seen: string | null
  last_seen: string | null
}

export interface ProjectedRelationship extends Omit<ProjectedNode, 'labels'> {
  source: string
  target: string
  relationship_type: string
  navigation: null
}

export interface Projection {
  boundary: BoundaryView
  nodes: ProjectedNode[]
  relationships: ProjectedRelationship[]
  metadata: {
    requested_budget: ProjectionBudget
    applied_budget: ProjectionBudget
    partial: boolean
    returned_nodes: number
    omitted_nodes: number
    returned_relationships: number
    omitted_relationships: number
    omitted_properties: number
    computation_units: number
  }
}

const nodeId = (id: number) => `node--${id}`
const relId = (id: number) => `relationship--${id}`
const stringProp = (props: Map<string, PropertyValue>, key: string) => {
  const v = props.get(key)
  return typeof v === 'string' ? v : null
}

/** The envelope around records so far, for the payload budget: braces, keys and separators. */
const ENVELOPE_BYTES = 512

/**
 * Reads the graph as of `seq` from record history and builds a bounded, deterministic projection in two
 * phases, both charged as they go (never building more than the budget allows):
 *  1. structure: nodes in id order, then relationships between returned nodes in id order, each as a bare
 *     record (1 computation unit and its serialised size), within max_nodes / max_relationships;
 *  2. properties: the remaining units and bytes are spent on properties, nodes first, then relationships,
 *     each record's keys in sorted order and at most max_properties_per_record of them. So, as the reference
 *     drops them, the last properties go first (relationships' before nodes'), then relationships, then nodes.
 */
export function project(
  store: GraphStore,
  history: RecordHistory,
  seq: number,
  budget: ProjectionBudget,
  boundary: BoundaryView,
): Projection {
  let units = 0
  let bytes =
    ENVELOPE_BYTES +
    Buffer.byteLength(
      JSON.stringify({ boundary, metadata: { requested_budget: budget, applied_budget: budget } }),
    )
  let omittedNodes = 0
  let omittedRels = 0
  let omittedProps = 0
  const fits = (size: number, cost: number) =>
    bytes + size <= budget.max_payload_bytes && units + cost <= budget.max_computation_units

  const common = (kind: 'node' | 'rel', id: number, state: NodeState | RelState) => {
    const { version, since } = history.versionAt(kind, id, seq)
    const confidence = state.props.get('confidence')
    return {
      version_id: `${kind === 'node' ? nodeId(id) : relId(id)}@${since}`,
      version,
      status: stringProp(state.props, 'status') ?? 'active',
      confidence:
        typeof confidence === 'number'
          ? confidence
          : typeof confidence === 'bigint'
            ? Number(confidence)
            : null,
      first_seen: stringProp(state.props, 'first_seen'),
      last_seen: stringProp(state.props, 'last_seen'),
    }
  }

  // Phase 1: structure.
  const nodes: ProjectedNode[] = []
  const nodeStates: NodeState[] = []
  const returned = new Set<number>()
  let full = false
  for (const id of history.nodeIds(store)) {
    if (full || nodes.length >= budget.max_nodes) {
      // Past the budget only existence matters: count without building the record.
      if (history.existsAt(store, 'node', id, seq)) omittedNodes++
      full = true
      continue
    }
    const state = history.nodeAt(store, id, seq)
    if (state === null) continue
    const record: ProjectedNode = {
      id: nodeId(id),
      ...common('node', id, state),
      labels: [...state.labels].sort(),
      properties: {},
    }
    const size = Buffer.byteLength(JSON.stringify(record)) + 1
    if (!fits(size, 1)) {
      omittedNodes++
      full = true
      continue
    }
    bytes += size
    units += 1
    nodes.push(record)
    nodeStates.push(state)
    returned.add(id)
  }
  const relationships: ProjectedRelationship[] = []
  const relStates: RelState[] = []
  full = false
  for (const id of history.relIds(store)) {
    // Endpoints never change, so a live relationship whose ends were not returned is skipped before its
    // state is built; a deleted one is read from history.
    if (store.relType(id) >= 0 && !(returned.has(store.relStart(id)) && returned.has(store.relEnd(id)))) {
      if (history.existsAt(store, 'rel', id, seq)) omittedRels++
      continue
    }
    const state = history.relAt(store, id, seq)
    if (state === null) continue
    if (
      full ||
      !returned.has(state.start) ||
      !returned.has(state.end) ||
      relationships.length >= budget.max_relationships
    ) {
      omittedRels++
      continue
    }
    const record: ProjectedRelationship = {
      id: relId(id),
      ...common('rel', id, state),
      properties: {},
      source: nodeId(state.start),
      target: nodeId(state.end),
      relationship_type: state.type,
      navigation: null,
    }
    const size = Buffer.byteLength(JSON.stringify(record)) + 1
    if (!fits(size, 1)) {
      omittedRels++
      full = true
      continue
    }
    bytes += size
    units += 1
    relationships.push(record)
    relStates.push(state)
  }

  // Phase 2: properties with what is left.
  let exhausted = false
  const fill = (target: Record<string, TypedProperty>, props: Map<string, PropertyValue>) => {
    const keys = [...props.keys()].sort()
    let kept = 0
    for (const key of keys) {
      if (exhausted || kept >= budget.max_properties_per_record) break
      const typed = typedProperty(props.get(key) ?? null)
      const size = Buffer.byteLength(JSON.stringify(key)) + Buffer.byteLength(JSON.stringify(typed)) + 2
      if (!fits(size, 1)) {
        exhausted = true
        break
      }
      target[key] = typed
      bytes += size
      units += 1
      kept++
    }
    omittedProps += keys.length - kept
  }
  for (const [i, record] of nodes.entries()) fill(record.properties, nodeStates[i]!.props)
  for (const [i, record] of relationships.entries()) fill(record.properties, relStates[i]!.props)

  if (nodes.length === 0 && omittedNodes > 0) {
    throw new EngineError(
      'INVALID_VISUALIZATION_PROJECTION',
      'the budget admits no record at all: raise max_payload_bytes or max_computation_units',
    )
  }
  return {
    boundary,
    nodes,
    relationships,
    metadata: {
      requested_budget: budget,
      applied_budget: budget,
      partial: omittedNodes + omittedRels + omittedProps > 0,
      returned_nodes: nodes.length,
      omitted_nodes: omittedNodes,
      returned_relationships: relationships.length,
      omitted_relationships: omittedRels,
      omitted_properties: omittedProps,
      computation_units: units,
    },
  }
}
