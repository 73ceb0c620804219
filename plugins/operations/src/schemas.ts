import { Nullable, StringEnum } from '@service/plugin-errors'
import { type Static, Type } from 'typebox'

const NonNegativeInteger = Type.Integer({ minimum: 0 })

export const RecoveryRecord = Type.Object({
  outcome: StringEnum(['ephemeral', 'recovered', 'unavailable']),
  manifest_validated: Type.Boolean(),
  required_components_validated: Type.Boolean(),
  catalog_recovered: Type.Boolean(),
  adjacency_storage_recovered: Type.Boolean(),
  warning_count: NonNegativeInteger,
  derived_state_rebuilt: Type.Boolean(),
})

export const DurabilityRecord = Type.Object({
  controls: Type.Object({ require_fsync: Type.Boolean(), strict_recovery: Type.Boolean() }),
  wal_bytes: NonNegativeInteger,
  wal_lag_sequences: NonNegativeInteger,
  checkpoint_sequence: Nullable(NonNegativeInteger),
  checkpoint_age_seconds: Nullable(NonNegativeInteger),
  compaction_backlog_bytes: NonNegativeInteger,
  recovery: RecoveryRecord,
})

/** Storage faults met by the running process (not part of the spec's record; an extra optional field). */
export const StorageFaultRecord = Type.Object({
  state: StringEnum(['healthy', 'reloading', 'writes_suspended']),
  reason: Nullable(Type.String()),
  since_ms: Nullable(NonNegativeInteger),
  faults_total: NonNegativeInteger,
  recoveries_total: NonNegativeInteger,
  attempts: NonNegativeInteger,
  checkpoint_failures_total: NonNegativeInteger,
  checkpoint_error: Nullable(Type.String()),
})

/** Where the durable state lives and this server's role in it (PostgreSQL primary, follower, fenced). */
const ReplicationRecord = Type.Object({
  backend: StringEnum(['file', 'postgres']),
  role: StringEnum(['primary', 'follower', 'fenced']),
  epoch: Nullable(NonNegativeInteger),
  applied_sequence: NonNegativeInteger,
  log_sequence: NonNegativeInteger,
  lag_sequences: NonNegativeInteger,
  lag_ms: NonNegativeInteger,
  reason: Nullable(Type.String()),
  primary_url: Nullable(Type.String()),
})

export const HealthRecord = Type.Object(
  {
    status: Type.Literal('ok'),
    service: Type.Literal('service-http-server'),
    version: Type.String(),
    storage_mode: StringEnum(['ephemeral', 'persistent']),
    uptime_ms: NonNegativeInteger,
    lifecycle_state: Type.String(),
    session_ttl_metrics: Type.Object({
      total_expired_sessions: NonNegativeInteger,
      expired_last_5m_sessions: NonNegativeInteger,
    }),
    domain_providers: Type.Object({ configured: NonNegativeInteger, ready: NonNegativeInteger }),
    durability: DurabilityRecord,
    storage_faults: StorageFaultRecord,
    storage_backend: StringEnum(['memory', 'file', 'postgres']),
    replication: Nullable(ReplicationRecord),
    /** The Bolt listener (Neo4j drivers and tools): whether it is on, its port and open connections. */
    bolt: Type.Object({
      enabled: Type.Boolean(),
      listening: Type.Boolean(),
      port: Nullable(NonNegativeInteger),
      tls: Type.Boolean(),
      connections: NonNegativeInteger,
      max_connections: NonNegativeInteger,
    }),
  },
  { $id: 'HealthRecord' },
)
export type HealthRecord = Static<typeof HealthRecord>

const ReadyChecks = Type.Object({
  engine_initialized: Type.Boolean(),
  storage_recovered: Type.Boolean(),
  providers_ready: Type.Boolean(),
  accepting_requests: Type.Boolean(),
  storage_writable: Type.Boolean(),
})

export const ReadinessRecord = Type.Object({
  status: StringEnum(['ready', 'not_ready']),
  ready: Type.Boolean(),
  service: Type.String(),
  lifecycle_state: Type.String(),
  checks: ReadyChecks,
  /** Why the service is not ready, when a storage fault is the reason. */
  reason: Type.Optional(Type.String()),
})

export const LivenessRecord = Type.Object({
  status: Type.Literal('live'),
  live: Type.Literal(true),
  service: Type.String(),
  lifecycle_state: Type.String(),
})

export const VersionRecord = Type.Object({
  service: Type.String(),
  version: Type.String(),
  commit: Type.String(),
  build_target: Type.String(),
  storage_compatibility: Type.Object({
    supported_versions: Type.Array(Type.String()),
    supported_record_formats: Type.Array(Type.String()),
    active_storage_version: Nullable(Type.String()),
    active_record_format: Nullable(Type.String()),
  }),
  ref_mode: StringEnum(['elastic_free', 'reversible_reference']),
})
