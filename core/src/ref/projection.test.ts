/**
 * The projector's batch form, its fallback, retry backoff, and the receipt retention window, against a
 * second real engine playing the reference (as the e2e tests use a second server).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { type Engine, openEngine } from '../runtime/index.js'
import { refCreate, refWriteRequest } from '../testing/ref-requests.js'
import { EntryBackoff, maxAttemptsWithin, nominalDelay } from './backoff.js'
import type { ReferenceAnswer, ReferenceClient } from './reference-client.js'
import type { RefOptions } from './write-options.js'

const dirs: string[] = []
const engines: Engine[] = []
afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'ref-projection-'))
  dirs.push(dir)
  return dir
}
async function open(ref: RefOptions = {}, dir = tempDir()): Promise<Engine> {
  const engine = await openEngine({ storage: { mode: 'persistent', dir }, ref })
  engines.push(engine)
  return engine
}

const request = refWriteRequest
const create = (id: string, key?: string) => refCreate(id, key)
const outcome = (r: unknown) =>
  (r as { outcome: { status: string; error?: { code: string; message: string } } }).outcome

/** The reference engine behind both forms, mapped as the HTTP door maps them. */
async function reference() {
  const engine = await open()
  const singles: unknown[] = []
  const batches: unknown[][] = []
  const post = async (body: unknown): Promise<ReferenceAnswer> => {
    singles.push(body)
    try {
      return { status: 200, body: { ok: true, ...(await engine.ref.write(body)) } }
    } catch (error) {
      return { status: 503, body: { ok: false, error: { code: (error as { code: string }).code } } }
    }
  }
  const postBatch = async (requests: unknown[]): Promise<ReferenceAnswer> => {
    batches.push(requests)
    const answers = await engine.ref.writeBatch(requests)
    return {
      status: 200,
      body: {
        ok: true,
        results: answers.map((a) =>
          a.result === 'answered'
            ? { result: 'answered', status: 200, body: { ok: true, ...a.response } }
            : a.result === 'refused'
              ? { result: 'answered', status: 503, body: { ok: false, error: { code: a.error.code } } }
              : { result: 'skipped', reason: 'stopped' },
        ),
      },
    }
  }
  const client: ReferenceClient = { post, postBatch }
  return { engine, client, singles, batches }
}

/** `client` behind a switch: down (transport error) until `open()`. */
function gated(client: ReferenceClient) {
  let up = false
  const batch = client.postBatch
  const gate: ReferenceClient = {
    post: async (body, signal) => (up ? client.post(body, signal) : Promise.reject(new Error('down'))),
    ...(batch === undefined
      ? {}
      : {
          postBatch: async (bodies: unknown[], signal: AbortSignal) =>
            up ? batch(bodies, signal) : Promise.reject(new Error('down')),
        }),
  }
  return {
    client: gate,
    open: () => {
      up = true
    },
  }
}

const records = async (engine: Engine) => (await engine.ref.reconstruction()).records

describe('projection batches', () => {
  it('sends runs of consecutive entries in one request, in order, and reaches parity', async () => {
    const ref = await reference()
    const gate = gated(ref.client)
    const engine = await open({ reference: gate.client, batchMax: 4, retryIntervalMs: 60_000 })
    for (let i = 0; i < 9; i++) await engine.ref.write(create(`malware--b${i}`))
    // Entries touching one record and a merge (a barrier) keep their order.
    await engine.ref.write(request('update', { id: 'malware--b0', patch: { description: 'u1' } }))
    await engine.ref.write(request('update', { id: 'malware--b0', patch: { description: 'u2' } }))
    await engine.ref.write(request('merge', { target_id: 'malware--b0', source_ids: ['malware--b1'] }))
    gate.open()
    const status = await engine.ref.drain()
    expect(status.result).toMatchObject({ projection_lag: 0, projection_quarantined: 0 })
    expect(await records(ref.engine)).toEqual(await records(engine))
    const attempts = engine.ref.projectionAttempts()
    expect(attempts.batch_supported).toBe(true)
    // 12 entries, each sent once, at most 4 a request; a unit waits for the in-flight ones it does not
    // commute with (the updates of malware--b0 wait for the run that creates it).
    expect(ref.batches.length).toBeGreaterThanOrEqual(2)
    for (const batch of ref.batches) expect(batch.length).toBeLessThanOrEqual(4)
    const sent = [...ref.batches.flat(), ...ref.singles].map(
      (b) => (b as { context: { request_id: string } }).context.request_id,
    )
    expect(new Set(sent).size).toBe(12)
    expect(sent).toHaveLength(12)
  })

  it('the reference applies a batch in order and skips everything after the first entry not applied', async () => {
    const ref = await reference()
    const answers = await ref.engine.ref.writeBatch([
      create('malware--s1'),
      request('update', { id: 'malware--absent', patch: { description: 'x' } }),
      create('malware--s3'),
    ])
    expect(answers.map((a) => a.result)).toEqual(['answered', 'answered', 'skipped'])
    expect(answers[1]?.result === 'answered' && answers[1].response.outcome.status).toBe('failure')
    expect((await records(ref.engine)).map((r) => r.id)).toEqual(['malware--s1'])
    // The skipped write was not applied and holds no receipt: sent again alone, it applies.
    expect(outcome(await ref.engine.ref.write(answersRequest('malware--s3'))).status).toBe('success')
  })

  it('a batch is bounded: empty or over SERVICE_REF_PROJECTION_BATCH_MAX is refused', async () => {
    const engine = await open({ batchMax: 2 })
    await expect(engine.ref.writeBatch([])).rejects.toMatchObject({ code: 'INVALID_REF_WRITE_BATCH' })
    await expect(
      engine.ref.writeBatch([create('malware--x1'), create('malware--x2'), create('malware--x3')]),
    ).rejects.toMatchObject({ code: 'INVALID_REF_WRITE_BATCH' })
    const two = await engine.ref.writeBatch([create('malware--x1'), create('malware--x2')])
    expect(two.map((a) => a.result)).toEqual(['answered', 'answered'])
  })

  it('a divergent entry inside a batch is quarantined; earlier ones are delivered, later ones stay pending', async () => {
    const ref = await reference()
    let divergeAt = -1
    const client: ReferenceClient = {
      post: ref.client.post,
      postBatch: async (requests, signal) => {
        const answer = await (ref.client.postBatch as NonNullable<ReferenceClient['postBatch']>)(
          requests,
          signal,
        )
        const results = (answer.body as { results: { body: { outcome: { response: { data: object } } } }[] })
          .results
        const target = results[divergeAt]
        if (target !== undefined) Object.assign(target.body.outcome.response.data, { revision: 99 })
        return answer
      },
    }
    const gate = gated(client)
    const engine = await open({ reference: gate.client, batchMax: 8, retryIntervalMs: 60_000 })
    for (let i = 0; i < 5; i++) await engine.ref.write(create(`malware--d${i}`))
    gate.open()
    divergeAt = 2
    const status = await engine.ref.drain()
    expect(status.projections.map((p) => p.status)).toEqual([
      'delivered',
      'delivered',
      'quarantined',
      'pending',
      'pending',
    ])
    expect(status.result.write_authority).toBe('writes_suspended')
  })

  it('falls back to one entry a request when the reference has no batch form (404), and remembers it', async () => {
    const ref = await reference()
    let batchCalls = 0
    const client: ReferenceClient = {
      post: ref.client.post,
      postBatch: async () => {
        batchCalls += 1
        return { status: 404, body: { ok: false, error: { code: 'NOT_FOUND' } } }
      },
    }
    const gate = gated(client)
    const engine = await open({ reference: gate.client, batchMax: 8, retryIntervalMs: 60_000 })
    for (let i = 0; i < 6; i++) await engine.ref.write(create(`malware--f${i}`))
    gate.open()
    let status = await engine.ref.drain()
    expect(status.result.projection_lag).toBe(0)
    expect(engine.ref.projectionAttempts().batch_supported).toBe(false)
    expect(batchCalls).toBe(1)
    expect(ref.singles).toHaveLength(6)
    for (let i = 6; i < 9; i++) await engine.ref.write(create(`malware--f${i}`))
    status = await engine.ref.drain()
    expect(status.result.projection_lag).toBe(0)
    expect(batchCalls).toBe(1)
    expect(await records(ref.engine)).toEqual(await records(engine))
  })
})

describe('projection batch size', () => {
  it('halves the batch when the reference refuses it as too large (400), down to what it takes', async () => {
    const ref = await reference()
    const sizes: number[] = []
    const client: ReferenceClient = {
      post: ref.client.post,
      postBatch: async (bodies, signal) => {
        sizes.push(bodies.length)
        if (bodies.length > 3) return { status: 400, body: { ok: false, error: { code: 'INVALID_REQUEST' } } }
        return (ref.client.postBatch as NonNullable<ReferenceClient['postBatch']>)(bodies, signal)
      },
    }
    const gate = gated(client)
    const engine = await open({
      reference: gate.client,
      batchMax: 16,
      maxConcurrency: 1,
      retryIntervalMs: 60_000,
    })
    for (let i = 0; i < 10; i++) await engine.ref.write(create(`malware--z${i}`))
    gate.open()
    const status = await engine.ref.drain()
    expect(status.result.projection_lag).toBe(0)
    // 10 refused, 5 refused, then runs of 2 (5 halved): never a refused size again.
    expect(sizes).toEqual([10, 5, 2, 2, 2, 2, 2])
    expect(await records(ref.engine)).toEqual(await records(engine))
  })
})

/** The create request of `id` under a fresh key (a skipped entry sent again alone). */
const answersRequest = (id: string) => create(id)

describe('projection retry backoff', () => {
  it('doubles from the base to the ceiling, with equal jitter', () => {
    const policy = { baseMs: 100, maxMs: 1000 }
    expect([1, 2, 3, 4, 5, 6].map((n) => nominalDelay(policy, n))).toEqual([100, 200, 400, 800, 1000, 1000])
    let clock = 0
    let draw = 0
    const backoff = new EntryBackoff(
      policy,
      () => clock,
      () => draw,
    )
    expect(backoff.failed(7)).toBe(50) // the lowest draw: half the delay
    draw = 0.999999
    expect(backoff.failed(7)).toBeCloseTo(200, 3) // the highest: the whole (second) delay
    expect(backoff.failing).toBe(true)
    clock = 10
    expect(backoff.readyAt(7)).toBeCloseTo(200, 3)
    backoff.settled(7)
    expect(backoff.failing).toBe(false)
    expect(backoff.earliest()).toBeNull()
    // The bound an outage of a window may cost: attempts at 0, >=50, >=150, >=350, >=750 within 1 s.
    expect(maxAttemptsWithin(policy, 1000)).toBe(5)
    expect(maxAttemptsWithin(policy, 749)).toBe(4)
    expect(maxAttemptsWithin(policy, 750)).toBe(5)
  })

  it('an outage while writes continue makes no more attempts than the backoff allows, then drains', async () => {
    const ref = await reference()
    let up = false
    let requests = 0
    const client: ReferenceClient = {
      post: async (body, signal) => {
        requests += 1
        if (!up) throw new Error('connect ECONNREFUSED')
        return ref.client.post(body, signal)
      },
      postBatch: async (bodies, signal) => {
        requests += 1
        if (!up) throw new Error('connect ECONNREFUSED')
        return (ref.client.postBatch as NonNullable<ReferenceClient['postBatch']>)(bodies, signal)
      },
    }
    const policy = { baseMs: 40, maxMs: 160 }
    const engine = await open({
      reference: client,
      maxConcurrency: 4,
      retryIntervalMs: policy.baseMs,
      retryMaxMs: policy.maxMs,
    })
    const started = Date.now()
    let written = 0
    while (Date.now() - started < 600) {
      await engine.ref.write(create(`malware--o${written++}`))
      await new Promise((r) => setTimeout(r, 5))
    }
    const elapsed = Date.now() - started
    const attempts = engine.ref.projectionAttempts()
    expect(attempts.requests_total).toBe(requests)
    // Before the first failure is known up to maxConcurrency requests may be in flight; after it, the
    // backoff: one probe at a time, each after its entry's delay.
    expect(requests).toBeLessThanOrEqual(4 - 1 + maxAttemptsWithin(policy, elapsed))
    expect(requests).toBeGreaterThan(1)
    expect(written).toBeGreaterThan(20)
    expect(attempts.next_retry_at_ms).not.toBeNull()
    up = true
    // The timer retries on its own: no drain call needed.
    const deadline = Date.now() + 5000
    while (engine.ref.status().result.projection_lag !== 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20))
    expect(engine.ref.status().result.projection_lag).toBe(0)
    expect(engine.ref.projectionAttempts().next_retry_at_ms).toBeNull()
    expect(await records(ref.engine)).toEqual(await records(engine))
  })
})

describe('receipt retention window', () => {
  it('replays inside the count window and answers CONFLICT outside it, across a restart and a checkpoint', async () => {
    const dir = tempDir()
    let engine = await open({ receiptRetention: { count: 2, ageMs: 3_600_000 } }, dir)
    const bodies = [1, 2, 3].map((i) => create(`malware--r${i}`, `retained-${i}`))
    for (const body of bodies) expect(outcome(await engine.ref.write(body)).status).toBe('success')
    // The newest 2 are inside: replayed (the edge: exactly `count` receipts kept).
    expect(outcome(await engine.ref.write(bodies[1])).status).toBe('success')
    expect(outcome(await engine.ref.write(bodies[2])).status).toBe('success')
    expect(engine.ref.counters().idempotent_replays).toBe(2)
    const outside = outcome(await engine.ref.write(bodies[0]))
    expect(outside).toMatchObject({ status: 'failure', error: { code: 'CONFLICT' } })
    expect(outside.error?.message).toMatch(/no longer kept.*newest 2 writes/)
    // Not applied a second time.
    expect((await records(engine)).filter((r) => r.id === 'malware--r1')).toHaveLength(1)
    await engine.close()
    engines.splice(engines.indexOf(engine), 1)
    engine = await open({ receiptRetention: { count: 2, ageMs: 3_600_000 } }, dir)
    expect(outcome(await engine.ref.write(bodies[0])).error?.code).toBe('CONFLICT')
    expect(outcome(await engine.ref.write(bodies[2])).status).toBe('success')
    await engine.checkpoint()
    await engine.close()
    engines.splice(engines.indexOf(engine), 1)
    engine = await open({ receiptRetention: { count: 2, ageMs: 3_600_000 } }, dir)
    expect(outcome(await engine.ref.write(bodies[0])).error?.code).toBe('CONFLICT')
    expect(outcome(await engine.ref.write(bodies[1])).status).toBe('success')
  })

  it('replays up to the age edge and answers CONFLICT one millisecond past it', async () => {
    let clock = 1_000_000
    const engine = await open({ receiptRetention: { count: 100, ageMs: 1000 }, now: () => clock })
    const body = create('malware--age', 'aged-key')
    expect(outcome(await engine.ref.write(body)).status).toBe('success')
    clock += 1000
    expect(outcome(await engine.ref.write(body)).status).toBe('success')
    clock += 1
    expect(outcome(await engine.ref.write(body)).error?.code).toBe('CONFLICT')
    // The next commit prunes it; the key stays retired.
    expect(outcome(await engine.ref.write(create('malware--later'))).status).toBe('success')
    expect(outcome(await engine.ref.write(body)).error?.code).toBe('CONFLICT')
  })

  it('keeps the receipts of undelivered entries past the count (the projector compares against them)', async () => {
    const down: ReferenceClient = { post: async () => Promise.reject(new Error('down')) }
    const engine = await open({
      reference: down,
      retryIntervalMs: 60_000,
      receiptRetention: { count: 1, ageMs: 3_600_000 },
    })
    const bodies = [1, 2, 3].map((i) => create(`malware--h${i}`, `held-${i}`))
    for (const body of bodies) await engine.ref.write(body)
    for (const body of bodies) expect(outcome(await engine.ref.write(body)).status).toBe('success')
  })
})
