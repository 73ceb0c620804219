/**
 * The reference-write codes that only a failing store produces, reached from outside: storage faults in the
 * real process (libfiu, as in the storage fault tests) for the write, outbox, authority, file and
 * reconstruction failures, and a committed write whose receipt cannot be read (a WAL record rewritten with a
 * valid checksum) for the recovery block.
 */
import { createHash } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { refBulkCreates } from '@service/core/testing'
import { describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, type ErrorBody, type RunningServer, startServer } from './harness.js'
import { malware, persistentRefEnv, refWriter } from './ref-support.js'
import {
  eventually,
  fiuControl,
  fiuPresent,
  persistentEnv,
  readyStatus,
  toolPresent,
} from './storage-faults-support.js'

const fiu = toolPresent('fiu-run (libfiu)', fiuPresent())
const FDATASYNC_EIO = 'enable name=posix/io/sync/fdatasync,failinfo=5'

const { write } = refWriter('faults-')
const refWrite = (key: string, id: string) => write('create', { record: malware(id) }, { key })

interface Answer {
  ok: boolean
  outcome?: { status: string }
  error?: { code: string; message: string }
  authority?: string
}
const post = (server: RunningServer, path: string, body?: unknown, token?: string) =>
  server.request<Answer>(path, {
    method: 'POST',
    ...(token === undefined ? {} : { token }),
    ...(body === undefined ? {} : { body }),
  })
const code = (answer: { status: number; json: Answer }) => [answer.status, answer.json.error?.code]
const graphDir = (prefix: string) => join(mkdtempSync(join(tmpdir(), prefix)), 'graph')

describe.skipIf(!fiu)('reference-write state failures under storage faults', () => {
  it('write, outbox, authority, file and reconstruction failures answer their codes, and clear when the storage does', async () => {
    const control = fiuControl()
    const server = await startServer({
      env: {
        ...persistentEnv(graphDir('ref-faults-')),
        SERVICE_HTTP_ADMIN_AUTH_TOKEN: ADMIN_TOKEN,
        ...control.env,
      },
    })
    try {
      await control.send(server, FDATASYNC_EIO)
      // The intent is published without waiting for its fsync; the payload's commit is the one that fails.
      const first = await post(server, '/v1/ref/writes', refWrite('fault-1', 'malware--f1'))
      expect(code(first)).toEqual([503, 'REF_PRIMARY_WRITE_FAILED'])
      // The store now refuses every commit: the next write's intent cannot be persisted.
      const second = await post(server, '/v1/ref/writes', refWrite('fault-2', 'malware--f2'))
      expect(code(second)).toEqual([503, 'REF_PROJECTION_STATE_FAILED'])
      const suspend = await post(
        server,
        '/v1/admin/ref/authority/suspend',
        { trigger: 'corruption' },
        ADMIN_TOKEN,
      )
      expect(code(suspend)).toEqual([503, 'REF_AUTHORITY_STATE_FAILED'])
      const deleted = await post(server, '/v1/ref/files', { operation: 'delete', file_ids: ['file--1'] })
      expect(code(deleted)).toEqual([503, 'REF_FILE_DELETE_FAILED'])
      const load = await post(
        server,
        '/v1/admin/ref/reconstruction/load',
        {
          high_water_sequence: 1,
          records: [{ id: 'malware--l', type: 'malware', name: 'loaded' }],
          revisions: { 'malware--l': 3 },
          receipts: [],
        },
        ADMIN_TOKEN,
      )
      expect(code(load)).toEqual([503, 'REF_RECONSTRUCTION_FAILED'])
      // No message carries a key or a token.
      for (const answer of [first, second, suspend, deleted, load])
        expect(answer.json.error?.message).not.toMatch(/fault-\d|e2e-|token/i)

      await control.send(server, 'disable name=posix/io/sync/fdatasync')
      await eventually(async () => (await readyStatus(server)) === 200)
      const retried = await post(server, '/v1/ref/writes', refWrite('fault-1', 'malware--f1'))
      expect([retried.status, retried.json.outcome?.status]).toEqual([200, 'success'])
      expect(
        (await post(server, '/v1/admin/ref/authority/suspend', { trigger: 'corruption' }, ADMIN_TOKEN)).json
          .authority,
      ).toBe('writes_suspended')
    } finally {
      await server.kill()
    }
  })
})

/** Rewrites the first WAL record holding a reference-write commit: its receipt's answer loses its outcome. */
function spoilReceipt(dir: string): boolean {
  const walDir = join(dir, 'wal')
  for (const name of readdirSync(walDir).sort()) {
    const path = join(walDir, name)
    const lines = readFileSync(path, 'utf8').split('\n')
    let changed = false
    const out = lines.map((line) => {
      if (changed || !line.includes('"k":"commit"') || !line.includes('"receipt"')) return line
      const prefix = line.slice(0, line.lastIndexOf(',"sha256":"'))
      const record = JSON.parse(`${prefix}}`) as Record<string, unknown>
      const spoil = (value: unknown): void => {
        if (value === null || typeof value !== 'object') return
        const v = value as Record<string, unknown>
        if (v.k === 'commit' && v.receipt !== undefined) {
          ;(v.receipt as { response: { outcome: unknown } }).response.outcome = {}
          changed = true
          return
        }
        for (const item of Object.values(v)) spoil(item)
      }
      spoil(record)
      const text = JSON.stringify(record).slice(0, -1)
      return `${text},"sha256":"${createHash('sha256').update(text).digest('hex')}"}`
    })
    if (changed) {
      writeFileSync(path, out.join('\n'))
      return true
    }
  }
  return false
}

describe('a committed write whose receipt cannot be read', () => {
  it('blocks readiness and answers REF_RECOVERY_BLOCKED', async () => {
    const dir = graphDir('ref-blocked-')
    // A reference that never answers keeps the entry pending, so the receipt is what recovery reads.
    const env = {
      ...persistentEnv(dir),
      SERVICE_HTTP_ADMIN_AUTH_TOKEN: ADMIN_TOKEN,
      SERVICE_REF_SHADOW_REFERENCE_ENDPOINT: 'http://127.0.0.1:9/v1/ref/writes',
    }
    const first = await startServer({ env })
    expect((await post(first, '/v1/ref/writes', refWrite('blocked-1', 'malware--b1'))).status).toBe(200)
    await first.kill() // no final checkpoint: the commit stays in the WAL
    expect(spoilReceipt(dir)).toBe(true)
    const second = await startServer({ env, waitReady: false })
    try {
      await eventually(async () => {
        try {
          return (await second.request('/health/live', { token: null })).status === 200
        } catch {
          return false // not listening yet
        }
      }).catch((error: Error) => {
        throw new Error(`${error.message}; stderr: ${second.stderr()}`)
      })
      expect(await readyStatus(second)).toBe(503)
      const refused = await second.request<ErrorBody>('/v1/ref/writes', {
        body: refWrite('blocked-2', 'malware--b2'),
      })
      expect([refused.status, refused.json.error.code]).toEqual([503, 'REF_RECOVERY_BLOCKED'])
      expect(refused.json.error.message).toMatch(/receipt cannot be read/)
    } finally {
      await second.kill()
    }
  })
})

describe('an acknowledged bulk write across kill -9', () => {
  it('comes back whole: every record of a bulk logged as columnar runs, and a retry replays its answer', async () => {
    const dir = graphDir('ref-bulk-kill-')
    const env = { ...persistentRefEnv(dir), SERVICE_OPENCTI_SYNC_MAX_OPERATIONS: '500' }
    const operations = refBulkCreates('k', 50, 150)
    const bulk = write('bulk', { atomic: true, operations }, { key: 'bulk-kill-1' })
    const records = async (server: RunningServer) =>
      (
        await server.request<{ result: { records: unknown[] } }>('/v1/admin/ref/reconstruction', {
          method: 'POST',
          token: ADMIN_TOKEN,
        })
      ).json.result.records
    const first = await startServer({ env })
    let before: unknown[]
    let answer: Answer
    try {
      const acknowledged = await post(first, '/v1/ref/writes', bulk)
      expect([acknowledged.status, acknowledged.json.outcome?.status]).toEqual([200, 'success'])
      answer = acknowledged.json
      before = await records(first)
      expect(before).toHaveLength(200)
    } finally {
      await first.kill() // no final checkpoint: the bulk is in the WAL only
    }
    const second = await startServer({ env })
    try {
      expect(await records(second)).toEqual(before)
      const retried = await post(second, '/v1/ref/writes', bulk)
      expect(retried.json).toEqual(answer)
    } finally {
      await second.kill()
    }
  })
})
