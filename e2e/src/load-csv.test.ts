/**
 * LOAD CSV against the real server: a 100k-row file in the import directory loads with
 * `CALL { … } IN TRANSACTIONS OF 1000 ROWS`, and a SIGKILL in the middle leaves whole batches only; files
 * outside the directory (by `..` or a symlink) and URLs not allowed are refused, the latter without any
 * connection to their address.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { type BatchCount, killMidBatches } from './batch-kill.js'
import { type RunningServer, startServer } from './harness.js'

interface Envelope {
  result: {
    status: string
    data: { columns: string[]; rows: unknown[][] } | null
    validation_errors: { code: string; message: string }[]
  }
}

const ROWS = 100_000
const BATCH = 1000
const LOAD = `LOAD CSV WITH HEADERS FROM 'file:///people.csv' AS row
  CALL (row) { CREATE (:Person {id: toInteger(row.id), name: row.name}) } IN TRANSACTIONS OF ${BATCH} ROWS`

/** A storage directory and an import directory holding the generated file, a secret beside it and a symlink to it. */
function fixture() {
  const root = mkdtempSync(join(tmpdir(), 'load-csv-e2e-'))
  const importDir = join(root, 'import')
  mkdirSync(importDir)
  const lines = ['id,name']
  for (let i = 1; i <= ROWS; i++) lines.push(`${i},"person ${i}"`)
  writeFileSync(join(importDir, 'people.csv'), `${lines.join('\n')}\n`)
  writeFileSync(join(root, 'secret.csv'), 'secret\n42\n')
  symlinkSync(join(root, 'secret.csv'), join(importDir, 'link.csv'))
  return { root, importDir }
}

async function people(server: RunningServer): Promise<BatchCount> {
  const res = await server.request<Envelope>('/v1/cypher/read', {
    body: { query: 'MATCH (p:Person) RETURN count(p), min(p.id), max(p.id)' },
  })
  const [count, min, max] = (res.json.result.data?.rows[0] ?? [0, null, null]) as [number, number, number]
  return { count, min, max }
}

describe('LOAD CSV', () => {
  it('loads in durable batches: after SIGKILL midway only whole batches exist', async () => {
    const { root, importDir } = fixture()
    const env = {
      SERVICE_STORAGE_MODE: 'persistent',
      SERVICE_STORAGE_DIR: join(root, 'graph'),
      SERVICE_CYPHER_IMPORT_DIR: importDir,
      SERVICE_LOG_LEVEL: 'warn',
    }
    try {
      // Killed once a few batches are acknowledged (visible), while most of the file is still to come.
      await killMidBatches({ env, write: LOAD, count: people, minSeen: 3 * BATCH, batch: BATCH, total: ROWS })
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  }, 240_000)

  it('refuses files outside the import directory and URLs not allowed, connecting nowhere', async () => {
    const { root, importDir } = fixture()
    const connections: string[] = []
    const trap = createServer((socket) => {
      connections.push(socket.remoteAddress ?? '')
      socket.destroy()
    })
    await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve))
    const trapUrl = `http://127.0.0.1:${(trap.address() as AddressInfo).port}`
    const server = await startServer({
      env: {
        SERVICE_CYPHER_IMPORT_DIR: importDir,
        SERVICE_CYPHER_IMPORT_ALLOWED_URLS: 'https://data.example.invalid/exports/',
      },
    })
    const refused = async (url: string) => {
      const res = await server.request<Envelope>('/v1/cypher/read', {
        body: { query: 'LOAD CSV FROM $url AS row RETURN row', params: { url } },
      })
      expect(res.json.result.status).toBe('Rejected')
      return res.json.result.validation_errors[0]
    }
    try {
      expect(await refused('file:///../secret.csv')).toMatchObject({ code: 'LOAD_CSV_NOT_ALLOWED' })
      expect(await refused('file:///link.csv')).toMatchObject({
        code: 'LOAD_CSV_NOT_ALLOWED',
        message: expect.stringContaining('symbolic link'),
      })
      expect(await refused(`${trapUrl}/people.csv`)).toMatchObject({
        code: 'LOAD_CSV_NOT_ALLOWED',
        message: expect.stringContaining('SERVICE_CYPHER_IMPORT_ALLOWED_URLS'),
      })
      expect(connections).toEqual([])
      // The read door takes a LOAD CSV that only reads.
      const read = await server.request<Envelope>('/v1/cypher/read', {
        body: { query: "LOAD CSV WITH HEADERS FROM 'file:///people.csv' AS row RETURN count(*)" },
      })
      expect(read.json.result.data?.rows).toEqual([[ROWS]])
    } finally {
      await server.stop()
      await new Promise<void>((resolve) => trap.close(() => resolve()))
      rmSync(root, { recursive: true, force: true })
    }
  }, 120_000)
})
