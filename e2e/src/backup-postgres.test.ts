import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { backupDuringWrites, cli, expectExactlyUpTo, REF_LANE_ENV } from './backup-support.js'
import { ADMIN_TOKEN, type RunningServer, startServer } from './harness.js'
import { postgresForTests, postgresTestsRun } from './postgres-support.js'
import { countItems, persistentEnv, writePair } from './storage-faults-support.js'

const run = postgresTestsRun()
const scratch = mkdtempSync(join(tmpdir(), 'backup-pg-e2e-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

const admin = { SERVICE_HTTP_ADMIN_AUTH_TOKEN: ADMIN_TOKEN }

/** Runs `check` against a server started with `env`, then stops it. */
async function withServer(env: Record<string, string>, check: (server: RunningServer) => Promise<void>) {
  const server = await startServer({ env })
  try {
    await check(server)
  } finally {
    await server.stop()
  }
}

/** The keys of the `Item` nodes a server holds, sorted, and one temporal value read back. */
async function contentsOf(server: RunningServer): Promise<{ keys: string[]; when: unknown }> {
  const res = await server.request<{ result: { data: { rows: unknown[][] } } }>('/v1/cypher/read', {
    body: { query: 'MATCH (n:Item {part: 1}) RETURN n.k AS k ORDER BY k' },
  })
  const when = await server.request<{ result: { data: { rows: unknown[][] } } }>('/v1/cypher/read', {
    body: { query: 'MATCH (t:When) RETURN t.at AS at' },
  })
  return {
    keys: res.json.result.data.rows.map(([k]) => k as string),
    when: when.json.result.data.rows[0]?.[0],
  }
}

describe.runIf(run)('online backup of the PostgreSQL store, and migration between the stores', () => {
  const { cluster, env } = postgresForTests()

  it('a backup under concurrent writes restores exactly into a directory and into another database', async () => {
    cluster().createDatabase('live')
    // A small checkpoint cadence: images are written (and older log rows dropped) while the backup runs.
    const server = await startServer({
      env: env('live', {
        ...admin,
        ...REF_LANE_ENV,
        SERVICE_STORAGE_CHECKPOINT_EVERY_BYTES: String(128 * 1024),
      }),
    })
    let taken: Awaited<ReturnType<typeof backupDuringWrites>>
    const out = join(scratch, 'live.tar')
    try {
      taken = await backupDuringWrites(server, out)
    } finally {
      await server.stop()
    }
    const verified = await cli(['verify', out])
    expect(verified.code, verified.stderr).toBe(0)
    expect(JSON.parse(verified.stdout)).toMatchObject({ kind: 'archive', sequence: taken.sequence })

    // Into a directory: the file store opens a PostgreSQL backup as its own.
    const dir = join(scratch, 'from-pg')
    const toDir = await cli(['restore', out, '--storage-dir', dir])
    expect(toDir.code, toDir.stderr).toBe(0)
    expect(JSON.parse(toDir.stdout)).toMatchObject({
      backup: { backend: 'postgres', sequence: taken.sequence },
      recovery: { durable_sequence: taken.sequence },
    })
    await withServer(persistentEnv(dir, REF_LANE_ENV), (copy) => expectExactlyUpTo(copy, taken))

    // Into another, empty database; the password never reaches the output.
    const url = cluster().createDatabase('copy').replace('postgres@', 'postgres:pg-secret-word@')
    const toPg = await cli(['restore', out, '--postgres-url', url])
    expect(toPg.code, toPg.stderr).toBe(0)
    expect(toPg.stdout + toPg.stderr).not.toContain('pg-secret-word')
    expect(JSON.parse(toPg.stdout)).toMatchObject({
      backup: { backend: 'postgres', sequence: taken.sequence },
      recovery: { durable_sequence: taken.sequence },
    })
    await withServer(env('copy', REF_LANE_ENV), async (copy) => {
      await expectExactlyUpTo(copy, taken)
      // The restored database takes writes under its new owner.
      expect((await writePair(copy, 'after-restore:0')).acknowledged).toBe(true)
    })

    // A database that holds a graph is refused, and left as it was.
    const again = await cli(['restore', out, '--postgres-url', url])
    expect(again.code).toBe(2)
    expect(again.stderr).toContain('RESTORE_TARGET_NOT_EMPTY')
    await withServer(env('copy'), async (copy) => {
      expect((await contentsOf(copy)).keys).toContain('after-restore:0')
    })
  }, 180_000)

  it('migrates a file store into PostgreSQL and back, keeping every record and temporal value', async () => {
    const dir = join(scratch, 'origin')
    const keys: string[] = []
    const fileBackup = join(scratch, 'origin.tar')
    await withServer(persistentEnv(dir, admin), async (origin) => {
      for (let i = 0; i < 40; i++) {
        keys.push(`m:${String(i).padStart(2, '0')}`)
        expect((await writePair(origin, keys[i] as string, 'p'.repeat(i * 50))).acknowledged).toBe(true)
      }
      const temporal = await origin.request('/v1/cypher/write', {
        body: { query: "CREATE (:When {at: datetime('2024-05-01T10:30:15.123456789+02:00')})" },
      })
      expect(temporal.status).toBe(200)
      const backup = await cli(['backup', '--url', origin.url, '--out', fileBackup])
      expect(backup.code, backup.stderr).toBe(0)
    })
    const url = cluster().createDatabase('migrated')
    const toPg = await cli(['restore', fileBackup, '--postgres-url', url])
    expect(toPg.code, toPg.stderr).toBe(0)
    expect(JSON.parse(toPg.stdout)).toMatchObject({ backup: { backend: 'file' } })

    const pgBackup = join(scratch, 'migrated.tar')
    let expected: { keys: string[]; when: unknown } = { keys: [], when: null }
    await withServer(env('migrated', admin), async (migrated) => {
      expected = await contentsOf(migrated)
      expect(expected.keys).toEqual(keys)
      expect(expected.when).toEqual({ $datetime: '2024-05-01T10:30:15.123456789+02:00' })
      expect(await countItems(migrated)).toBe(80)
      const backup = await cli(['backup', '--url', migrated.url, '--out', pgBackup])
      expect(backup.code, backup.stderr).toBe(0)
    })
    const back = join(scratch, 'back')
    const toDir = await cli(['restore', pgBackup, '--storage-dir', back])
    expect(toDir.code, toDir.stderr).toBe(0)
    await withServer(persistentEnv(back), async (copy) => {
      expect(await contentsOf(copy)).toEqual(expected)
    })
  }, 180_000)
})
