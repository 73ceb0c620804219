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
 * Reads the graph as of `seq` from record history and builds a bounded, deterministic projection. Budgets
 * are enforced while building: records are visited in id order, each charged 1 computation unit plus 1 per
 * property kept; payload bytes are counted as each record is serialised, dropping a record's properties
 * before dropping the record, and relationships (only between returned nodes) before nodes.
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
  let budgetHit = false

  const properties = (props: Map<string, PropertyValue>) => {
    const keys = [...props.keys()].sort()
    const kept = keys.slice(0, budget.max_properties_per_record)
    omittedProps += keys.length - kept.length
    const out: Record<string, TypedProperty> = {}
    for (const key of kept) out[key] = typedProperty(props.get(key) ?? null)
    return { out, kept: kept.length, dropped: keys.length - kept.length }
  }
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
  /** Charges a record against units and payload, dropping its properties first if that lets it fit. */
  const admit = <T extends { properties: Record<string, TypedProperty> }>(
    record: T,
    propCount: number,
  ): T | null => {
    const cost = 1 + propCount
    if (units + cost <= budget.max_computation_units) {
      const size = Buffer.byteLength(JSON.stringify(record)) + 1
      if (bytes + size <= budget.max_payload_bytes) {
        units += cost
        bytes += size
        return record
      }
    }
    // Properties go before the record does.
    if (units + 1 > budget.max_computation_units) return null
    const bare = { ...record, properties: {} }
    const bareSize = Buffer.byteLength(JSON.stringify(bare)) + 1
    if (bytes + bareSize > budget.max_payload_bytes) return null
    units += 1
    bytes += bareSize
    omittedProps += propCount
    return bare
  }

  const nodes: ProjectedNode[] = []
  const returned = new Set<number>()
  for (const id of history.nodeIds(store)) {
    const state = history.nodeAt(store, id, seq)
    if (state === null) continue
    if (budgetHit || nodes.length >= budget.max_nodes) {
      omittedNodes++
      budgetHit = true
      continue
    }
    const { out, kept } = properties(state.props)
    const record = admit(
      { id: nodeId(id), ...common('node', id, state), labels: [...state.labels].sort(), properties: out },
      kept,
    )
    if (record === null) {
      omittedNodes++
      budgetHit = true
      continue
    }
    // keep key order stable: id, version_id, version, labels, properties, status, confidence, first_seen, last_seen
    nodes.push({
      id: record.id,
      version_id: record.version_id,
      version: record.version,
      labels: record.labels,
      properties: record.properties,
      status: record.status,
      confidence: record.confidence,
      first_seen: record.first_seen,
      last_seen: record.last_seen,
    })
    returned.add(id)
  }

  const relationships: ProjectedRelationship[] = []
  let relBudgetHit = false
  for (const id of history.relIds(store)) {
    const state = history.relAt(store, id, seq)
    if (state === null) continue
    if (!returned.has(state.start) || !returned.has(state.end)) {
      omittedRels++
      continue
    }
    if (relBudgetHit || relationships.length >= budget.max_relationships) {
      omittedRels++
      relBudgetHit = true
      continue
    }
    const { out, kept } = properties(state.props)
    const record = admit(
      {
        id: relId(id),
        ...common('rel', id, state),
        properties: out,
        source: nodeId(state.start),
        target: nodeId(state.end),
        relationship_type: state.type,
        navigation: null,
      },
      kept,
    )
    if (record === null) {
      omittedRels++
      relBudgetHit = true
      continue
    }
    relationships.push(record)
  }

  if (nodes.length === 0 && omittedNodes > 0) {
    throw new EngineError(
      'INVALID_VISUALIZATION_PROJECTION',
      'the budget admits no record at all: raise max_payload_bytes or max_computation_units',
      'invalid',
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
