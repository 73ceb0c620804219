/** The memory contract v1: names, limits and the record shapes the operations return (FACTS §7). */

export const CONTRACT_VERSION = 'v1'

export const OPERATIONS = [
  'remember',
  'relate',
  'recall',
  'update',
  'trace',
  'forget',
  'consolidate',
] as const
export type OperationName = (typeof OPERATIONS)[number]

export const PERMISSIONS = ['read', 'write', 'trace', 'forget', 'consolidate'] as const
export type MemoryPermission = (typeof PERMISSIONS)[number]

/** The permission each operation needs; consolidate needs its own in both modes. */
export const PERMISSION_OF: Readonly<Record<OperationName, MemoryPermission>> = {
  remember: 'write',
  relate: 'write',
  update: 'write',
  recall: 'read',
  forget: 'forget',
  consolidate: 'consolidate',
  trace: 'trace',
}

export const LIFECYCLES = ['active', 'expired', 'superseded', 'tombstoned'] as const
export type Lifecycle = (typeof LIFECYCLES)[number]

export const FORGET_MODES = ['expire', 'tombstone', 'application_delete'] as const
export type ForgetMode = (typeof FORGET_MODES)[number]

export const TARGET_KINDS = ['memory', 'relationship', 'recall', 'mutation'] as const
export type TargetKind = (typeof TARGET_KINDS)[number]

/** Recall limits: every one required, 1..max (supernode_threshold has no upper bound). */
export const RECALL_LIMITS = {
  max_items: 10_000,
  max_depth: 16,
  max_payload_bytes: 16 * 1024 * 1024,
  max_cost: 1_000_000,
  timeout_ms: 60_000,
  supernode_threshold: Number.MAX_SAFE_INTEGER,
} as const
export type RecallLimits = { -readonly [K in keyof typeof RECALL_LIMITS]: number }

export const RECALL_OUTCOMES = [
  'supernode_blocked',
  'cost_budget_exhausted',
  'payload_budget_exhausted',
  'timeout',
  'semantic_provider_unavailable',
] as const
export type RecallOutcome = (typeof RECALL_OUTCOMES)[number]

export const MAX_IDEMPOTENCY_KEY_CHARS = 256
export const CONSOLIDATE_MIN_IDS = 2
export const CONSOLIDATE_MAX_IDS = 100

/** The deployment-trusted identity of a caller; never part of a payload. */
export interface MemoryContext {
  workspace_id: string
  actor_id: string
  agent_id: string | null
  session_id: string
  permissions: Iterable<MemoryPermission>
  correlation_id: string
}

export interface Provenance {
  source_id: string
  locator: string | null
  observed_at: string | null
}

export type Content =
  | { format: 'text'; value: string }
  | { format: 'properties'; value: Record<string, unknown> }
  | { format: 'text_and_properties'; value: { text: string; properties: Record<string, unknown> } }

interface Temporal {
  confidence: number | null
  valid_from: string | null
  valid_until: string | null
  recorded_at: string
  expires_at: string | null
  lifecycle: Lifecycle
  version: number
}

export interface MemoryRecord extends Temporal {
  id: string
  identity_key: string | null
  kind: string
  schema_version: string
  content: Content
  provenance: Provenance[]
  tags: string[]
}

export interface RelationshipRecord extends Temporal {
  id: string
  identity_key: string | null
  source_id: string
  target_id: string
  kind: string
  properties: Record<string, unknown>
  provenance: Provenance[]
}

export interface Receipt {
  committed_id: string
  committed_version: number
  audit_correlation_id: string
  replayed: boolean
}

export interface MemoryResponse {
  ok: true
  contract_version: 'v1'
  result: { operation: string; result: Record<string, unknown> }
}
