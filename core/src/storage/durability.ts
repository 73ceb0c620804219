/** The health record's durability object (spec: Health record), filled from the storage layer's real state. */
export interface RecoveryReport {
  outcome: 'ephemeral' | 'recovered' | 'unavailable'
  manifest_validated: boolean
  required_components_validated: boolean
  catalog_recovered: boolean
  adjacency_storage_recovered: boolean
  warning_count: number
  derived_state_rebuilt: boolean
}

export interface DurabilityReport {
  controls: { require_fsync: boolean; strict_recovery: boolean }
  wal_bytes: number
  wal_lag_sequences: number
  checkpoint_sequence: number | null
  checkpoint_age_seconds: number | null
  compaction_backlog_bytes: number
  recovery: RecoveryReport
}

/** What an ephemeral engine reports: nothing on disk, nothing recovered, nothing pending. */
export const ephemeralDurability = (): DurabilityReport => ({
  controls: { require_fsync: false, strict_recovery: false },
  wal_bytes: 0,
  wal_lag_sequences: 0,
  checkpoint_sequence: null,
  checkpoint_age_seconds: null,
  compaction_backlog_bytes: 0,
  recovery: {
    outcome: 'ephemeral',
    manifest_validated: false,
    required_components_validated: false,
    catalog_recovered: false,
    adjacency_storage_recovered: false,
    warning_count: 0,
    derived_state_rebuilt: false,
  },
})
