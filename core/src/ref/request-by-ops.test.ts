import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import type { CommitOp } from '../graph/commit.js'
import { type Engine, openEngine } from '../runtime/index.js'
import { refBulkCreates, refWriteRequest } from '../testing/index.js'
import type { ReferenceClient } from './reference-client.js'
import type { RefWriteRequest } from './request.js'
import { requestByOps, requestFromOps } from './request-by-ops.js'

const dirs: string[] = []
const engines: Engine[] = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'ref-ops-'))
  dirs.push(dir)
  return dir
}
afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.close().catch(() => {})
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const DOWN: ReferenceClient = { post: async () => Promise.reject(new Error('connect ECONNREFUSED')) }

async function open(dir: string, reference: ReferenceClient = DOWN): Promise<Engine> {
  const engine = await openEngine({
    storage: { mode: 'persistent', dir, checkpointEveryBytes: 1e12 },
    ref: { reference, retryIntervalMs: 3_600_000, maxOperations: 500 },
  })
  engines.push(engine)
  return engine
}

/** A reference that is a second real engine (service-only store); records every request it is sent. */
async function engineReference(): Promise<{ client: ReferenceClient; calls: unknown[] }> {
  const engine = await openEngine({ storage: { mode: 'persistent', dir: tempDir() } })
  engines.push(engine)
  const calls: unknown[] = []
  const client: ReferenceClient = {
    post: async (body) => {
      calls.push(body)
      return { status: 200, body: await engine.ref.write(body) }
    },
  }
  return { client, calls }
}

/** A copy of `dir` as a kill -9 leaves it (no close, so no checkpoint: the WAL alone holds the writes). */
function killedCopy(dir: string): string {
  const copy = tempDir()
  cpSync(dir, copy, { recursive: true, filter: (path) => !path.endsWith('.lock') })
  return copy
}

const walText = (dir: string) =>
  readdirSync(join(dir, 'wal'))
    .map((name) => readFileSync(join(dir, 'wal', name), 'utf8'))
    .join('')

/** The request as the projector sends it, but for the idempotency key (the stored one is its hash). */
const withoutKey = (request: unknown) => {
  const r = request as { context: object }
  return { ...r, context: { ...r.context, idempotency_key: null } }
}

const bulk = (operations: unknown[], key?: string) =>
  refWriteRequest('bulk', { operations, atomic: true }, key) as unknown as RefWriteRequest

describe('requestByOps', () => {
  const creates = refBulkCreates('u', 3, 2)

  it('stands for a bulk of plain creates that are the first ops of their transaction, one op each', () => {
    const compact = requestByOps(bulk(creates), 0, 5)
    expect(compact?.count).toBe(5)
    expect(compact?.shell.operation).toEqual({ operation: 'bulk', request: { operations: [], atomic: true } })
  })

  it('keeps the whole request otherwise', () => {
    expect(requestByOps(bulk(creates), 2, 7)).toBeNull() // not the first work of its transaction
    expect(requestByOps(bulk(creates), 0, 4)).toBeNull() // an item made no op
    const withIds = creates.map((c, i) => ({ ...c, operation_id: `op-${i}` }))
    expect(requestByOps(bulk(withIds), 0, 5)).toBeNull()
    const reordered = creates.map((c) => ({ record: c.record, operation: c.operation }))
    expect(requestByOps(bulk(reordered), 0, 5)).toBeNull()
    const mixed = [...creates, { operation: 'delete', id: 'malware--u0' }]
    expect(requestByOps(bulk(mixed), 0, 6)).toBeNull()
    const single = refWriteRequest('create', { record: creates[0]?.record }) as unknown as RefWriteRequest
    expect(requestByOps(single, 0, 1)).toBeNull()
  })

  it('rebuilds the request from the create ops, and names a record that cannot be read', () => {
    const request = bulk(creates)
    const compact = requestByOps(request, 0, 5)
    if (compact === null) throw new Error('expected the compact form')
    const ops: CommitOp[] = creates.map((c, i) => ({
      op: 'createNode',
      id: i,
      labels: ['StixObject'],
      props: { stix_id: c.record.id, stix_raw: JSON.stringify(c.record) },
    }))
    expect(requestFromOps(compact, ops)).toEqual(request)
    expect(() => requestFromOps(compact, ops.slice(0, 4))).toThrow(/names 5 create ops; the record holds 4/)
    const broken = [...ops.slice(0, 4), { op: 'deleteNode', id: 1 } as CommitOp]
    expect(() => requestFromOps(compact, broken)).toThrow(/op 4 is not the create of a reference record/)
    expect(() => requestFromOps(compact, undefined)).toThrow(
      expect.objectContaining({ code: 'STORAGE_RECOVERY_FAILED' }),
    )
  })
})

describe('a projected bulk create logs its request once', () => {
  it('is logged by reference to its ops, and a kill and restart projects the same requests', async () => {
    const dir = tempDir()
    const first = await open(dir)
    const plain = bulk(refBulkCreates('p', 30, 90))
    // Operation ids: the whole request is logged, as before.
    const named = bulk(refBulkCreates('n', 4, 4).map((c, i) => ({ ...c, operation_id: `item-${i}` })))
    const single = refWriteRequest('create', { record: { id: 'malware--s1', type: 'malware', name: 'S' } })
    for (const request of [plain, named, single])
      expect((await first.ref.write(request)).outcome.status).toBe('success')
    const wal = walText(dir)
    expect(wal.match(/"request_ops"/g)).toHaveLength(1)
    // The plain bulk's records are in the log once: in the ops, as raw JSON text, not as objects too.
    expect(wal).toContain('{\\"id\\":\\"relationship--p89\\"')
    expect(wal).not.toContain('{"id":"relationship--p89"')
    expect(wal).toContain('{"id":"malware--n3"') // the named bulk's request, whole
    expect(wal).toContain('"operation_id":"item-3"')

    const reference = await engineReference()
    const second = await open(killedCopy(dir), reference.client)
    expect(second.recoveryFacts().replayed_transactions).toBeGreaterThan(0)
    const status = await second.ref.drain()
    expect(status.result).toMatchObject({ projection_lag: 0, fully_reconciled: true })
    expect(reference.calls.map(withoutKey)).toEqual([plain, named, single].map(withoutKey))
  })

  it('the process that wrote it projects the request it holds; a checkpoint image holds it whole', async () => {
    const live = await engineReference()
    let up = true
    const client: ReferenceClient = {
      post: (body, signal) => (up ? live.client.post(body, signal) : DOWN.post(body, signal)),
    }
    const dir = tempDir()
    const engine = await open(dir, client)
    const projected = bulk(refBulkCreates('l', 10, 20))
    await engine.ref.write(projected)
    await engine.ref.drain()
    expect(live.calls.map(withoutKey)).toEqual([withoutKey(projected)])

    up = false
    const pending = bulk(refBulkCreates('m', 10, 20))
    await engine.ref.write(pending)
    // Its failed attempt is recorded in the log too: let that land before the image, or it replays after it.
    await engine.ref.drain()
    await engine.checkpoint()
    const reference = await engineReference()
    const second = await open(killedCopy(dir), reference.client)
    expect(second.recoveryFacts().replayed_transactions).toBe(0)
    await second.ref.drain()
    expect(reference.calls.map(withoutKey)).toEqual([withoutKey(pending)])
  })

  it('an atomic bulk that fails logs nothing of its request, and a non-atomic partial one logs it whole', async () => {
    const dir = tempDir()
    const first = await open(dir)
    const failing = bulk([
      ...refBulkCreates('a', 2, 0),
      {
        operation: 'create',
        record: {
          id: 'relationship--a9',
          type: 'relationship',
          relationship_type: 'uses',
          source_ref: 'malware--a0',
          target_ref: 'malware--none',
        },
      },
    ])
    const failed = await first.ref.write(failing)
    const results = (failed.outcome as { response: { data: { results: { status: string }[] } } }).response
      .data.results
    expect(results.map((r) => r.status)).toEqual(['aborted', 'aborted', 'retryable'])
    const partial = refWriteRequest('bulk', {
      operations: [
        ...refBulkCreates('b', 2, 0),
        { operation: 'create', record: { id: 'malware--b0', type: 'malware' } },
      ],
      atomic: false,
    }) as unknown as RefWriteRequest
    expect((await first.ref.write(partial)).outcome.status).toBe('success')
    expect(walText(dir)).not.toContain('"request_ops"')
    const reference = await engineReference()
    const second = await open(killedCopy(dir), reference.client)
    await second.ref.drain()
    expect(reference.calls.map(withoutKey)).toEqual([withoutKey(partial)])
  })
})

describe('a log written before requests were logged by reference', () => {
  // Written by main at 650de37 (make-ref-full-request.mjs.txt beside it): the commit entry holds the request.
  const fixture = join(dirname(fileURLToPath(import.meta.url)), '__fixtures__', 'ref-full-request')

  it('replays its whole request and projects it', async () => {
    const dir = tempDir()
    cpSync(fixture, dir, { recursive: true })
    const reference = await engineReference()
    const engine = await open(dir, reference.client)
    expect(engine.recoveryFacts().replayed_transactions).toBeGreaterThan(0)
    await engine.ref.drain()
    const expected = refWriteRequest('bulk', { operations: refBulkCreates('f', 20, 40), atomic: true })
    expect(reference.calls.map(withoutKey)).toEqual(
      [withoutKey(expected)].map((r) => ({
        ...r,
        context: { ...r.context, request_id: expect.any(String), correlation_id: expect.any(String) },
      })),
    )
    // A replay of the same key answers from the receipt: the write is not applied twice.
    const again = await engine.ref.write(
      refWriteRequest('bulk', { operations: refBulkCreates('f', 20, 40), atomic: true }, 'fixture-bulk'),
    )
    expect(again.outcome.status).toBe('success')
    expect((await engine.ref.reconstruction()).records).toHaveLength(60)
  })
})

describe('a service-only store journals a bulk create once', () => {
  it('logs the journal entry by reference to its ops; a kill and restart hands back the same request', async () => {
    const dir = tempDir()
    const engine = await openEngine({
      storage: { mode: 'persistent', dir, checkpointEveryBytes: 1e12 },
      ref: { maxOperations: 500 },
    })
    engines.push(engine)
    const plain = bulk(refBulkCreates('j', 20, 60))
    const single = refWriteRequest('create', {
      record: { id: 'malware--j-single', type: 'malware', name: 'J' },
    })
    for (const request of [plain, single])
      expect((await engine.ref.write(request)).outcome.status).toBe('success')
    const wal = walText(dir)
    expect(wal.match(/"request_ops"/g)).toHaveLength(1)
    expect(wal).not.toContain('{"id":"relationship--j59"')
    const live = engine.ref.rollback.journal(0, 10)
    expect(live.entries.map((e) => withoutKey(e.request))).toEqual([plain, single].map(withoutKey))

    const copy = killedCopy(dir)
    const second = await openEngine({
      storage: { mode: 'persistent', dir: copy },
      ref: { maxOperations: 500 },
    })
    engines.push(second)
    expect(second.recoveryFacts().replayed_transactions).toBeGreaterThan(0)
    expect(second.ref.rollback.journal(0, 10)).toEqual(live)
  })
})
