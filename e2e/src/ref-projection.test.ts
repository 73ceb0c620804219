/**
 * Projection batches, retry backoff and the receipt window against real processes: a primary projecting
 * through the fault proxy to a second instance of this service playing the reference platform.
 * `E2E_REF_OUTAGE_MS` sets the outage length of the backoff test (CI: 3 s; the figure: 60000).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { maxAttemptsWithin } from '@service/core/ref'
import { refCreate, refWriteRequest } from '@service/core/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, type RunningServer, startServer, TOKEN } from './harness.js'
import { type FaultProxy, startFaultProxy } from './ref-proxy.js'

const OUTAGE_MS = Number(process.env.E2E_REF_OUTAGE_MS ?? 3000)
const RETRY = { baseMs: 200, maxMs: OUTAGE_MS >= 30_000 ? 5000 : 1000 }

const dirs: string[] = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-ref-projection-'))
  dirs.push(dir)
  return dir
}
const persistent = (dir: string, extra: Record<string, string> = {}) => ({
  SERVICE_STORAGE_MODE: 'persistent',
  SERVICE_STORAGE_DIR: dir,
  SERVICE_HTTP_ADMIN_AUTH_TOKEN: ADMIN_TOKEN,
  SERVICE_REF_RATE_LIMIT_PER_SECOND: '100000',
  SERVICE_REF_RATE_LIMIT_BURST: '100000',
  ...extra,
})
const primaryEnv = (proxy: FaultProxy, extra: Record<string, string> = {}) =>
  persistent(tempDir(), {
    SERVICE_REF_SHADOW_REFERENCE_ENDPOINT: `${proxy.url}/v1/ref/writes`,
    SERVICE_REF_SHADOW_REFERENCE_AUTH_TOKEN: TOKEN,
    SERVICE_REF_SHADOW_TIMEOUT_MS: '2000',
    SERVICE_REF_SHADOW_MAX_CONCURRENCY: '4',
    ...extra,
  })

const write = (id: string) => refCreate(id)
const update = (id: string) => refWriteRequest('update', { id, patch: { description: `d-${id}` } })

interface BatchAnswer {
  ok: boolean
  results: {
    result: string
    status?: number
    body?: { ok: boolean; outcome?: { status: string }; error?: { code: string } }
  }[]
  error?: { code: string }
}
interface Status {
  result: Record<string, number | boolean | string | null>
  projections: { status: string; attempts: number }[]
}
const status = async (server: RunningServer) => (await server.request<Status>('/v1/ref/writes/status')).json
const drain = (server: RunningServer) =>
  server.request<Status>('/v1/admin/ref/projection/drain', { method: 'POST', token: ADMIN_TOKEN })
const metric = async (server: RunningServer, name: string): Promise<number> => {
  const text = (await server.request('/metrics', { token: null })).text
  const line = text.split('\n').find((l) => l.startsWith(`${name} `))
  return line === undefined ? Number.NaN : Number(line.slice(name.length + 1))
}
const records = async (server: RunningServer) =>
  (
    await server.request<{ result: { records: unknown[] } }>('/v1/admin/ref/reconstruction', {
      method: 'POST',
      token: ADMIN_TOKEN,
    })
  ).json.result.records
async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check()) return true
    await new Promise((r) => setTimeout(r, 50))
  }
  return check()
}

let reference: RunningServer
beforeAll(async () => {
  reference = await startServer({
    env: persistent(tempDir(), {
      SERVICE_REF_PROJECTION_BATCH_MAX: '8',
      SERVICE_REF_RECEIPT_RETENTION_COUNT: '50',
    }),
  })
}, 60_000)
afterAll(async () => {
  await reference?.kill()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

describe('the batch form of reference writes', () => {
  it('applies writes in order, each answered as the write route would, and skips after the first not applied', async () => {
    const first = write('malware--batch-1')
    const answer = await reference.request<BatchAnswer>('/v1/ref/writes/batch', {
      body: {
        writes: [
          first,
          write('malware--batch-2'),
          { ...write('malware--batch-3'), context: { ...write('x').context, idempotency_key: ' ' } },
          write('malware--batch-4'),
        ],
      },
    })
    expect(answer.status).toBe(200)
    expect(answer.json.results.map((r) => [r.result, r.status ?? null])).toEqual([
      ['answered', 200],
      ['answered', 200],
      ['answered', 400],
      ['skipped', null],
    ])
    expect(answer.json.results[2]?.body?.error?.code).toBe('REF_IDEMPOTENCY_KEY_REQUIRED')
    const ids = ((await records(reference)) as { id: string }[]).map((r) => r.id)
    expect(ids).toContain('malware--batch-2')
    expect(ids).not.toContain('malware--batch-4')
    // A replay inside a batch answers from the receipt and the batch goes on.
    const again = await reference.request<BatchAnswer>('/v1/ref/writes/batch', {
      body: { writes: [first, write('malware--batch-5')] },
    })
    expect(again.json.results.map((r) => r.body?.outcome?.status)).toEqual(['success', 'success'])
    expect(again.json.results[0]?.body).toEqual(answer.json.results[0]?.body)
  })

  it('is bounded at SERVICE_REF_PROJECTION_BATCH_MAX: 8 pass, 9 and 0 are 400 in the envelope', async () => {
    const batch = (count: number) => ({
      writes: Array.from({ length: count }, (_, i) => write(`malware--bound-${count}-${i}`)),
    })
    expect((await reference.request<BatchAnswer>('/v1/ref/writes/batch', { body: batch(8) })).status).toBe(
      200,
    )
    for (const count of [9, 0]) {
      const refused = await reference.request<BatchAnswer>('/v1/ref/writes/batch', { body: batch(count) })
      expect(refused.status).toBe(400)
      expect(refused.json).toMatchObject({ ok: false, error: { code: 'INVALID_REF_WRITE_BATCH' } })
    }
    const noToken = await reference.request('/v1/ref/writes/batch', { body: batch(1), token: null })
    expect(noToken.status).toBe(401)
  })
})

describe('projection through the batch form, and without it', () => {
  for (const noBatch of [false, true]) {
    it(`drains in order and reaches parity (${noBatch ? 'reference without the batch form: one entry a request' : 'batches'})`, async () => {
      const proxy = await startFaultProxy(reference.url)
      proxy.noBatch = noBatch
      proxy.mode = 'outage'
      const primary = await startServer({ env: primaryEnv(proxy, { SERVICE_REF_PROJECTION_BATCH_MAX: '8' }) })
      try {
        const prefix = noBatch ? 'single' : 'batched'
        for (let i = 0; i < 12; i++)
          await primary.request('/v1/ref/writes', { body: write(`malware--${prefix}-${i}`) })
        await primary.request('/v1/ref/writes', { body: update(`malware--${prefix}-0`) })
        proxy.mode = 'pass'
        const before = proxy.requests
        const batchesBefore = proxy.batchRequests
        const drained = (await drain(primary)).json
        expect(drained.result).toMatchObject({ projection_lag: 0, projection_quarantined: 0 })
        const sent = proxy.requests - before
        const form = await primary.request('/metrics', { token: null })
        if (noBatch) {
          expect(form.text).toMatch(/^service_ref_projection_batch_form\{state="unsupported"\} 1$/m)
          // Learnt from the first batch answers (404), then one request an entry, and never asked again.
          const learnt = proxy.batchRequests
          expect(learnt).toBeGreaterThanOrEqual(1)
          expect(sent - (learnt - batchesBefore)).toBeGreaterThanOrEqual(13)
          await primary.request('/v1/ref/writes', { body: write(`malware--${prefix}-late-1`) })
          await primary.request('/v1/ref/writes', { body: write(`malware--${prefix}-late-2`) })
          expect((await drain(primary)).json.result.projection_lag).toBe(0)
          expect(proxy.batchRequests).toBe(learnt)
        } else {
          expect(form.text).toMatch(/^service_ref_projection_batch_form\{state="supported"\} 1$/m)
          expect(sent).toBeLessThanOrEqual(4)
        }
        const ours = (await records(primary)) as { id: string }[]
        const theirs = (await records(reference)) as { id: string }[]
        for (const record of ours) expect(theirs).toContainEqual(record)
      } finally {
        await primary.kill()
        await proxy.close()
      }
    })
  }
})

describe('retry backoff during a reference outage', () => {
  it(
    `an outage of ${OUTAGE_MS} ms with writes continuing makes no more attempts than the backoff allows`,
    async () => {
      const proxy = await startFaultProxy(reference.url)
      const primary = await startServer({
        env: primaryEnv(proxy, {
          SERVICE_REF_PROJECTION_RETRY_BASE_MS: String(RETRY.baseMs),
          SERVICE_REF_PROJECTION_RETRY_MAX_MS: String(RETRY.maxMs),
        }),
      })
      try {
        proxy.mode = 'outage'
        const attemptsBefore = await metric(primary, 'service_ref_projection_attempts_total')
        const proxiedBefore = proxy.requests
        const started = Date.now()
        let written = 0
        while (Date.now() - started < OUTAGE_MS) {
          const answer = await primary.request<{ outcome: { status: string } }>('/v1/ref/writes', {
            body: write(`malware--outage-${written}`),
          })
          expect(answer.json.outcome.status).toBe('success')
          written += 1
          await new Promise((r) => setTimeout(r, 20))
        }
        const elapsed = Date.now() - started
        const attempts = (await metric(primary, 'service_ref_projection_attempts_total')) - attemptsBefore
        const nextRetry = await metric(primary, 'service_ref_projection_next_retry_timestamp_seconds')
        // Up to SERVICE_REF_SHADOW_MAX_CONCURRENCY requests may be in flight when the outage starts; after
        // the first failure, one probe at a time, each after its backoff.
        const allowed = 4 - 1 + maxAttemptsWithin(RETRY, elapsed)
        process.stderr.write(
          `ref outage ${elapsed} ms, ${written} writes: ${attempts} projection attempts (backoff allows ${allowed}; ` +
            `base ${RETRY.baseMs} ms, max ${RETRY.maxMs} ms)\n`,
        )
        expect(attempts).toBe(proxy.requests - proxiedBefore)
        expect(attempts).toBeGreaterThanOrEqual(1)
        expect(attempts).toBeLessThanOrEqual(allowed)
        expect(written).toBeGreaterThan(attempts)
        expect(nextRetry * 1000).toBeGreaterThan(started)
        // The reference returns: the backoff's timer drains everything without an admin drain.
        proxy.mode = 'pass'
        const drained = await until(
          async () => (await status(primary)).result.projection_lag === 0,
          RETRY.maxMs + 15_000,
        )
        if (!drained) {
          const st = await status(primary)
          process.stderr.write(
            `STUCK ${JSON.stringify(st.result)} ${JSON.stringify(st.projections.filter((p) => p.status !== 'delivered').slice(0, 3))} ${(
              await primary.request('/metrics', { token: null })
            ).text
              .split('\n')
              .filter((l) => l.startsWith('service_ref_proj'))
              .join(' | ')}\n`,
          )
        }
        expect(drained).toBe(true)
        expect(await metric(primary, 'service_ref_projection_next_retry_timestamp_seconds')).toBe(0)
      } finally {
        await primary.kill()
        await proxy.close()
      }
    },
    OUTAGE_MS + 60_000,
  )
})

describe('receipt retention window', () => {
  it('replays the newest SERVICE_REF_RECEIPT_RETENTION_COUNT writes and answers CONFLICT to an older key', async () => {
    const server = await startServer({
      env: persistent(tempDir(), { SERVICE_REF_RECEIPT_RETENTION_COUNT: '2' }),
    })
    try {
      const bodies = [1, 2, 3].map((i) => write(`malware--window-${i}`))
      const answers = []
      for (const body of bodies) answers.push((await server.request('/v1/ref/writes', { body })).json)
      expect((await server.request('/v1/ref/writes', { body: bodies[1] })).json).toEqual(answers[1])
      expect((await server.request('/v1/ref/writes', { body: bodies[2] })).json).toEqual(answers[2])
      const outside = await server.request<{
        outcome: { status: string; error: { code: string; message: string } }
      }>('/v1/ref/writes', { body: bodies[0] })
      expect(outside.status).toBe(200)
      expect(outside.json.outcome).toMatchObject({ status: 'failure', error: { code: 'CONFLICT' } })
      expect(outside.json.outcome.error.message).toMatch(/no longer kept/)
    } finally {
      await server.kill()
    }
  })
})
