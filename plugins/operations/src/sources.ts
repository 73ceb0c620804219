/**
 * Live figures other feature areas contribute to /health and /metrics. Each has a truthful default for a
 * deployment where that area holds no state yet (no sessions expired, no providers configured, no
 * reference writes queued, authority with the service).
 */
export type WriteAuthority = 'service_primary' | 'writes_suspended' | 'reference_primary'
export const WRITE_AUTHORITIES: readonly WriteAuthority[] = [
  'service_primary',
  'writes_suspended',
  'reference_primary',
]

export interface RefProjectionFigures {
  outbox_depth: number
  lag: number
  retries_total: number
  quarantined: number
  reconstruction_total: number
  authority: WriteAuthority
  mode: 'elastic_free' | 'reversible_reference'
}

export interface BoltHealth {
  enabled: boolean
  listening: boolean
  port: number | null
  tls: boolean
  connections: number
  max_connections: number
}

export interface HealthSources {
  sessionTtl: () => { total_expired_sessions: number; expired_last_5m_sessions: number }
  domainProviders: () => { configured: number; ready: number; all_required_ready: boolean }
  refProjection: () => RefProjectionFigures
  bolt: () => BoltHealth
}

export const defaultHealthSources = (): HealthSources => ({
  sessionTtl: () => ({ total_expired_sessions: 0, expired_last_5m_sessions: 0 }),
  domainProviders: () => ({ configured: 0, ready: 0, all_required_ready: true }),
  refProjection: () => ({
    outbox_depth: 0,
    lag: 0,
    retries_total: 0,
    quarantined: 0,
    reconstruction_total: 0,
    authority: 'service_primary',
    mode: 'elastic_free',
  }),
  bolt: () => ({
    enabled: false,
    listening: false,
    port: null,
    tls: false,
    connections: 0,
    max_connections: 0,
  }),
})
