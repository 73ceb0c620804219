/** The shapes the page reads from the JSON API (only the fields it uses). */

export type TypedValue =
  | { type: 'null' }
  | { type: 'bool'; value: boolean }
  | { type: 'integer' | 'float'; value: number | string }
  | { type: 'string'; value: string }
  | { type: 'string_list'; value: string[] }
  | { type: 'integer_list' | 'float_list'; value: (number | string)[] }
  | { type: 'bool_list'; value: boolean[] }
  | { type: 'json'; value: unknown }

export interface ExplorerSession {
  session_id: string
  workspace_id: string
  actor_id: string
  actor_kind: string
  status: string
  started_at_ms: number
  updated_at_ms: number
  auto_stopped_due_to_idle_ttl: boolean
}

export interface Boundary {
  boundary_id: string
  kind: 'snapshot' | 'timeshot'
  session_id: string
  workspace_id: string
  parent_id: string | null
  transaction_id: string | null
  at: string
  label: string
  sequence: number
}

export interface TimelineNode {
  boundary: Boundary
  children: TimelineNode[]
}

export interface Timeline {
  session_id: string
  workspace_id: string
  roots: TimelineNode[]
}

interface ProjectedRecord {
  id: string
  version_id: string
  version: number
  properties: Record<string, TypedValue>
  status: string
  confidence: number | null
  first_seen: string | null
  last_seen: string | null
}

export interface ProjectedNode extends ProjectedRecord {
  labels: string[]
}

export interface ProjectedRelationship extends ProjectedRecord {
  source: string
  target: string
  relationship_type: string
}

export interface ProjectionBudget {
  max_nodes: number
  max_relationships: number
  max_properties_per_record: number
  max_payload_bytes: number
  max_computation_units: number
}

export interface Projection {
  boundary: { kind: string; boundary_id?: string; at?: string }
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

export interface SeedCandidate {
  node_id: string
  score: number
  explanation: { rationale: string; source_refs: string[]; boundary_notes: string[] }
  labels?: string[]
  title?: string
}

export interface MemoryRecord {
  id: string
  kind: string
  content: { format: string; value: unknown }
  tags: string[]
  version: number
  lifecycle: string
  provenance: { source_id: string; locator: string | null; observed_at: string | null }[]
}

export interface RecallItem {
  record: MemoryRecord
  selection_reasons: string[]
  score: number
  depth: number
  selection_path: { memory_ids: string[]; relationship_ids: string[] }
}

export interface RecallResult {
  recall_id: string
  items: RecallItem[]
  completeness: { complete: boolean; truncated: boolean; outcomes: string[] }
  usage: { items: number; depth: number; payload_bytes: number; cost: number; elapsed_ms: number }
}

export interface TraceVersion {
  version: number
  operation?: string
  recorded_at?: string
  actor_id?: string | null
  agent_id?: string | null
  session_id?: string | null
  correlation_id?: string | null
  [key: string]: unknown
}

export interface CypherResult {
  status: 'Success' | 'Rejected' | 'ValidationFailed'
  data: { columns: string[]; rows: unknown[][] } | null
  validation_errors: { code: string; message: string }[]
  warnings: string[]
}
