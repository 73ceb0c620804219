import type { EnvReader } from './env-reader.js'

export interface PostgresSettings {
  /** Connection URL; its password never reaches a log (see redactPostgresUrl). */
  url: string
  role: 'primary' | 'follower'
  promote: 'auto' | 'off'
  primaryUrl: string | null
  leaseMs: number
  pollMs: number
}

/**
 * The PostgreSQL store and read-follower settings. A follower or promotion needs the PostgreSQL store (a
 * storage directory has exactly one owning process and no followers).
 */
export function readPostgresSettings(r: EnvReader, persistent: boolean): PostgresSettings | null {
  const url = r.secret('SERVICE_STORAGE_POSTGRES_URL')
  const role = r.oneOf('SERVICE_STORAGE_ROLE', ['primary', 'follower'] as const, 'primary')
  const promote = r.oneOf('SERVICE_STORAGE_PROMOTE', ['auto', 'off'] as const, 'off')
  const primaryUrl = r.string('SERVICE_PRIMARY_URL') ?? null
  const leaseMs = r.integer('SERVICE_STORAGE_POSTGRES_LEASE_MS', 10_000, 300, 600_000)
  const pollMs = r.integer('SERVICE_STORAGE_FOLLOWER_POLL_MS', 200, 10, 60_000)
  if (primaryUrl !== null && !/^https?:\/\/[^\s]+$/.test(primaryUrl)) {
    r.problem('SERVICE_PRIMARY_URL must be an http(s) URL')
  }
  if (url !== null && !/^postgres(ql)?:\/\//.test(url)) {
    r.problem('SERVICE_STORAGE_POSTGRES_URL must be a postgres:// or postgresql:// URL')
  }
  if (url !== null && !persistent) {
    r.problem('SERVICE_STORAGE_POSTGRES_URL needs SERVICE_STORAGE_MODE=persistent')
  }
  if (url === null && role === 'follower') {
    r.problem(
      'SERVICE_STORAGE_ROLE=follower needs SERVICE_STORAGE_POSTGRES_URL (followers tail the PostgreSQL log)',
    )
  }
  if (promote === 'auto' && role !== 'follower') {
    r.problem('SERVICE_STORAGE_PROMOTE=auto applies to a follower (SERVICE_STORAGE_ROLE=follower)')
  }
  if (url === null) return null
  return { url, role, promote, primaryUrl, leaseMs, pollMs }
}

export { redactPostgresUrl } from '@service/core'
