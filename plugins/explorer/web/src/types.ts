/**
 * The shapes the page reads from the JSON API. The explorer's own (timeline, projection) are the engine's types,
 * imported as types only; the others list the fields the page uses.
 */
import type { Boundary, MemoryRecallItem, MemoryRecord, Projection, TimelineNode } from '@service/core'
import type { SeedCandidate } from '@service/core/seed'

export type { Boundary, MemoryRecord, Projection, SeedCandidate, TimelineNode }

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

export interface Timeline {
  session_id: string
  workspace_id: string
  roots: TimelineNode[]
}

/** The graph projection as the engine defines it (types only: nothing of the engine is bundled). */
export type ProjectedNode = Projection['nodes'][number]
export type ProjectedRelationship = Projection['relationships'][number]
/** A property value with its type spelled out (`{type: 'integer', value: 1}`). */
export type TypedValue = ProjectedNode['properties'][string]

export type RecallItem = MemoryRecallItem

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
