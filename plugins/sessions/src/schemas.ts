import { LOG_PAGE_LIMIT } from '@service/core'
import { Nullable, okEnvelope, StringEnum } from '@service/plugin-errors'
import { Type } from 'typebox'

export const ActorKind = Type.String({
  description: 'user, agent, orchestrator_agent, worker_agent, tool, system, test_fixture (aliases accepted)',
})

export const StartBody = Type.Object(
  {
    workspace_id: Type.String(),
    actor_id: Type.String(),
    actor_kind: Type.Optional(ActorKind),
    metadata: Type.Optional(Type.Record(Type.String(), Type.String())),
  },
  { additionalProperties: false },
)

const Status = StringEnum(['idle', 'working', 'processing', 'degraded', 'stopped'])

export const ExplorerSession = Type.Object(
  {
    session_id: Type.String(),
    workspace_id: Type.String(),
    actor_id: Type.String(),
    actor_kind: Type.String(),
    status: Status,
    started_at_ms: Type.Integer({ minimum: 0 }),
    updated_at_ms: Type.Integer({ minimum: 0 }),
    auto_stopped_due_to_idle_ttl: Type.Boolean(),
  },
  { $id: 'ExplorerSession' },
)

export const SessionParams = Type.Object({ session_id: Type.String() })

export const StartResponse = okEnvelope(
  Type.Object({ session_id: Type.String({ format: 'uuid' }), status: Status }),
)
export const StopResponse = okEnvelope(
  Type.Object({
    session_id: Type.String(),
    status: Type.Literal('stopped'),
    updated_at_ms: Type.Integer({ minimum: 0 }),
  }),
)
export const HealthResponse = okEnvelope(
  Type.Object({
    ...ExplorerSession.properties,
    uptime_ms: Type.Integer({ minimum: 0 }),
    stop_reason: Nullable(Type.Literal('idle_ttl_expired')),
  }),
)
export const ListQuery = Type.Object({ include_stopped: Type.Optional(Type.Boolean({ default: false })) })
export const ListResponse = okEnvelope(Type.Object({ sessions: Type.Array(ExplorerSession) }))

export const LogsQuery = Type.Object({
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: LOG_PAGE_LIMIT.max, default: LOG_PAGE_LIMIT.default }),
  ),
  from_ms: Type.Optional(Type.Integer()),
  to_ms: Type.Optional(Type.Integer()),
  format: Type.Optional(Type.String({ default: 'json' })),
})

const AuditEntry = Type.Object({
  timestamp: Type.Integer(),
  level: Type.String(),
  target: Type.String(),
  fields: Type.Record(Type.String(), Type.Unknown()),
})

export const LogsResponse = okEnvelope(
  Type.Object({
    session_id: Type.String(),
    matched_entries: Type.Integer({ minimum: 0 }),
    total_matched_entries: Type.Integer({ minimum: 0 }),
    stop_reason: Nullable(Type.String()),
    audit_parity: Type.Object({
      input_events: Type.Integer({ minimum: 0 }),
      output_events: Type.Integer({ minimum: 0 }),
      missing_output_event_ids: Type.Array(Type.String()),
      orphan_output_event_ids: Type.Array(Type.String()),
      parity_ok: Type.Boolean(),
    }),
    entries: Type.Array(AuditEntry),
  }),
)

export const TimelineResponse = okEnvelope(
  Type.Object({
    session_id: Type.String(),
    workspace_id: Type.String(),
    roots: Type.Array(Type.Unknown(), {
      description: 'Boundary trees: {boundary, children}; siblings ordered by boundary_id.',
    }),
  }),
)

const budgetParam = (min: number, max: number, def: number) =>
  Type.Optional(Type.String({ description: `integer ${min}..${max}, default ${def}` }))

export const GraphQuery = Type.Object({
  boundary_kind: Type.Optional(Type.String({ description: 'current (default), snapshot or timeshot' })),
  boundary_id: Type.Optional(Type.String()),
  max_nodes: budgetParam(1, 50000, 5000),
  max_relationships: budgetParam(1, 100000, 10000),
  max_properties_per_record: budgetParam(1, 256, 32),
  max_payload_bytes: budgetParam(1024, 16777216, 2097152),
  max_computation_units: budgetParam(1, 1000000, 100000),
})

export const GraphResponse = okEnvelope(
  Type.Object({
    boundary: Type.Unknown(),
    nodes: Type.Array(Type.Unknown()),
    relationships: Type.Array(Type.Unknown()),
    metadata: Type.Unknown(),
  }),
)
