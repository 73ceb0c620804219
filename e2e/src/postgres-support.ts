import { type PostgresCluster, postgresAvailability, startPostgres } from '@service/tools/postgres'
import { afterAll, beforeAll } from 'vitest'
import { freePort } from './harness.js'

/** Whether this file's PostgreSQL tests run (a missing PostgreSQL skips them, said once; CI fails instead). */
export function postgresTestsRun(): boolean {
  const availability = postgresAvailability()
  if (!availability.run) process.stderr.write(`${availability.reason}\n`)
  return availability.run
}

/**
 * A cluster for the enclosing describe block, stopped and removed after it even when a test failed, and
 * the settings of a server whose store is one database of it.
 */
export function postgresForTests(): {
  cluster: () => PostgresCluster
  env: (database: string, extra?: Record<string, string>) => Record<string, string>
} {
  let cluster: PostgresCluster | null = null
  beforeAll(async () => {
    cluster = startPostgres(await freePort())
  }, 120_000)
  afterAll(() => cluster?.destroy())
  const current = () => {
    if (cluster === null) throw new Error('the PostgreSQL cluster is not running')
    return cluster
  }
  return {
    cluster: current,
    env: (database, extra = {}) => ({
      SERVICE_STORAGE_MODE: 'persistent',
      SERVICE_STORAGE_POSTGRES_URL: `${current().url.replace(/\/postgres$/, '')}/${database}`,
      // A short lease and poll keep takeovers and catch-up within a test's time.
      SERVICE_STORAGE_POSTGRES_LEASE_MS: '1500',
      SERVICE_STORAGE_FOLLOWER_POLL_MS: '100',
      SERVICE_LOG_LEVEL: 'warn',
      ...extra,
    }),
  }
}
