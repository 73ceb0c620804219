import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { type Engine, openEngine } from '../runtime/index.js'
import { refWriteRequest } from '../testing/ref-requests.js'
import { accessAllowed } from './access-decision.js'
import { EvidenceState } from './evidence-state.js'
import { RefJournal } from './journal.js'
import { compareSnapshots, type ParitySnapshot } from './parity.js'
import type { ReferenceProbe } from './reference-probe.js'
import type { StoredResponse } from './state.js'

const dirs: string[] = []
const engines: Engine[] = []
afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const request = (operation: string, body: unknown) => refWriteRequest(operation, body)
const malware = (id: string, extra: object = {}) => ({ id, type: 'malware', name: `M ${id}`, ...extra })
const succeed = async (engine: Engine, body: unknown) => {
  const answer = await engine.ref.write(body)
  expect(answer.outcome.status).toBe('success')
  return answer
}

/** A service-only engine playing the reference, with the probe a primary would use over HTTP. */
async function reference(dir = mkdtempSync(join(tmpdir(), 'ref-rollback-'))) {
  dirs.push(dir)
  const engine = await openEngine({ storage: { mode: 'persistent', dir } })
  engines.push(engine)
  const probe: ReferenceProbe & { healthy: boolean } = {
    healthy: true,
    async health() {
      return { healthy: this.healthy, detail: this.healthy ? 'ready' : 'answered HTTP 503' }
    },
    snapshot: (inputs) => engine.ref.rollback.snapshot(inputs),
    journal: async (after, limit) => engine.ref.rollback.journal(after, limit),
  }
  return { engine, probe }
}

async function primaryOf(target: { current: Engine }, probe: ReferenceProbe) {
  const dir = mkdtempSync(join(tmpdir(), 'ref-rollback-'))
  dirs.push(dir)
  const engine = await openEngine({
    storage: { mode: 'persistent', dir },
    ref: {
      reference: { post: async (body) => ({ status: 200, body: await target.current.ref.write(body) }) },
      referenceProbe: probe,
      retryIntervalMs: 60_000,
    },
  })
  engines.push(engine)
  return engine
}

const revisions = async (engine: Engine) => (await engine.ref.reconstruction()).revisions
const PARITY = {
  queries: ['M'],
  subjects: [{ subject_id: 'user--1', organization_ids: [], marking_ids: [] }],
  record_ids: ['malware--a'],
}
const flags = { reference_healthy: true, replay_complete: true, parity_verified: true }

describe('reconstruction that rebuilds exactly', () => {
  it('a clean reference loaded from the corpus has the same revisions and answers further projections', async () => {
    const first = await reference()
    const target = { current: first.engine }
    const primary = await primaryOf(target, first.probe)
    await succeed(primary, request('create', { record: malware('malware--a') }))
    await succeed(primary, request('create', { record: malware('malware--b') }))
    await succeed(
      primary,
      request('update', { id: 'malware--a', expected_revision: 1, patch: { description: 'x' } }),
    )
    await succeed(primary, request('merge', { target_id: 'malware--a', source_ids: ['malware--b'] }))
    await primary.ref.drain()
    const corpus = await primary.ref.reconstruction()
    expect(corpus.revisions).toEqual({ 'malware--a': 3 })
    expect(corpus.receipts).toHaveLength(4)

    const clean = await reference()
    expect(await clean.engine.ref.rollback.load(corpus)).toEqual({ records: 1, receipts: 4 })
    expect(await revisions(clean.engine)).toEqual(await revisions(primary))
    await expect(clean.engine.ref.rollback.load(corpus)).rejects.toMatchObject({
      code: 'REF_RECONSTRUCTION_TARGET_NOT_EMPTY',
    })
    target.current = clean.engine
    await succeed(
      primary,
      request('update', { id: 'malware--a', expected_revision: 3, patch: { name: 'after' } }),
    )
    const status = await primary.ref.drain()
    expect(status.result).toMatchObject({ projection_lag: 0, projection_quarantined: 0 })
  })

  it('refuses a corpus that does not hold together, naming the record', async () => {
    const clean = await reference()
    const bad = (records: Record<string, unknown>[], revs: Record<string, number>) =>
      clean.engine.ref.rollback.load({ high_water_sequence: 0, records, revisions: revs, receipts: [] })
    await expect(bad([malware('malware--x')], {})).rejects.toThrow(
      /no positive integer revision for malware--x/,
    )
    await expect(bad([malware('malware--x'), malware('malware--x')], { 'malware--x': 1 })).rejects.toThrow(
      /twice/,
    )
    await expect(
      bad([{ id: 'relationship--r', type: 'relationship', source_ref: 'a', target_ref: 'b' }], {
        'relationship--r': 1,
      }),
    ).rejects.toMatchObject({ code: 'REF_RECONSTRUCTION_INVALID' })
  })
})

describe('evidence checked, and the return path', () => {
  it('refuses reference_primary on the evidence, then returns the reference writes before service_primary', async () => {
    const ref = await reference()
    const primary = await primaryOf({ current: ref.engine }, ref.probe)
    await succeed(primary, request('create', { record: malware('malware--a') }))
    await primary.ref.drain()
    await primary.ref.suspend('latency_regression')
    await expect(primary.ref.assignAuthority({ target: 'reference_primary', ...flags })).rejects.toThrow(
      /evidence contradicts parity_verified: no parity report has been computed/,
    )
    expect((await primary.ref.rollback.parity(PARITY)).verified).toBe(true)
    ref.probe.healthy = false
    await expect(primary.ref.assignAuthority({ target: 'reference_primary', ...flags })).rejects.toThrow(
      /evidence contradicts reference_healthy: the readiness probe failed: answered HTTP 503/,
    )
    ref.probe.healthy = true
    expect(await primary.ref.assignAuthority({ target: 'reference_primary', ...flags })).toEqual({
      authority: 'reference_primary',
    })
    const mark = primary.ref.evidence.handover?.reference_high_water_sequence ?? -1
    expect(mark).toBe(1)

    await succeed(
      ref.engine,
      request('update', { id: 'malware--a', expected_revision: 1, patch: { name: 'at ref' } }),
    )
    await succeed(ref.engine, request('create', { record: malware('malware--r') }))
    await expect(primary.ref.assignAuthority({ target: 'service_primary', ...flags })).rejects.toThrow(
      /the return path has not run/,
    )
    expect(await primary.ref.rollback.returnWrites()).toEqual({
      returned_through: 3,
      replayed: 2,
      reference_high_water_sequence: 3,
    })
    // The parity report predates the return: refused until it is computed again.
    await expect(primary.ref.assignAuthority({ target: 'service_primary', ...flags })).rejects.toThrow(
      /the last parity report covers sequence \d+, the outbox is at \d+/,
    )
    expect((await primary.ref.rollback.parity(PARITY)).verified).toBe(true)
    expect(await primary.ref.assignAuthority({ target: 'service_primary', ...flags })).toEqual({
      authority: 'service_primary',
    })
    expect(await revisions(primary)).toEqual({ 'malware--a': 2, 'malware--r': 1 })
    expect(primary.ref.status().result.projection_lag).toBe(0)
  })

  it('stops the return at a write that answers differently here', async () => {
    const ref = await reference()
    const primary = await primaryOf({ current: ref.engine }, ref.probe)
    await primary.ref.suspend('corruption')
    await primary.ref.rollback.parity(PARITY)
    await primary.ref.assignAuthority({ target: 'reference_primary', ...flags })
    // The primary holds a record the reference does not (parity was checked on an empty store).
    await succeed(ref.engine, request('create', { record: malware('malware--z') }))
    await primary.ref.write(request('create', { record: malware('malware--z', { name: 'other' }) }), {
      returned: true,
    })
    await expect(primary.ref.rollback.returnWrites()).rejects.toMatchObject({ code: 'REF_RETURN_FAILED' })
  })
})

describe('the parts', () => {
  it('journal: bounded, and says when writes above a sequence were dropped', () => {
    const journal = new RefJournal(2)
    const response = {} as StoredResponse
    for (const sequence of [1, 2, 3])
      journal.apply({
        k: 'write',
        entry: { sequence, key: `k${sequence}`, request: {}, response, bytes: 10 },
      })
    expect(journal.since(0, 10)).toMatchObject({ complete: false })
    expect(journal.since(1, 10)).toMatchObject({
      complete: true,
      entries: [{ sequence: 2 }, { sequence: 3 }],
    })
    expect(journal.since(1, 1).entries).toHaveLength(1)
    const copy = new RefJournal(2)
    for (const entry of journal.image()) copy.apply(entry)
    expect(copy.since(1, 10)).toEqual(journal.since(1, 10))
    expect(copy.since(0, 10).complete).toBe(false)
    // The byte bound: a large write pushes older ones out, but the newest is always kept.
    const sized = new RefJournal(100, 25)
    for (const [sequence, bytes] of [
      [1, 10],
      [2, 10],
      [3, 10],
      [4, 40],
    ] as const)
      sized.apply({ k: 'write', entry: { sequence, key: 'k', request: {}, response, bytes } })
    expect(sized.since(0, 10)).toMatchObject({ complete: false, entries: [{ sequence: 4 }] })
    expect(sized.droppedThrough).toBe(3)
  })

  it('evidence state survives its image; a new handover clears the return progress', () => {
    const state = new EvidenceState()
    state.apply({ k: 'handover', handover: { reference_high_water_sequence: 4, at: 't' } })
    state.apply({ k: 'returned', through: 6, replayed: 2 })
    const copy = new EvidenceState()
    for (const entry of state.image()) copy.apply(entry)
    expect([copy.handover, copy.returnedThrough, copy.returnedWrites]).toEqual([state.handover, 6, 2])
    copy.apply({ k: 'handover', handover: null })
    expect(copy.returnedThrough).toBeNull()
  })

  it('access decision: markings held, granted organization, listed members', () => {
    const subject = { subject_id: 'user--a', organization_ids: ['org--1'], marking_ids: ['m1'] }
    expect(accessAllowed(subject, {})).toBe(true)
    expect(accessAllowed(subject, { object_marking_refs: ['m1'] })).toBe(true)
    expect(accessAllowed(subject, { object_marking_refs: ['m1', 'm2'] })).toBe(false)
    expect(accessAllowed(subject, { granted_refs: ['org--2'] })).toBe(false)
    expect(accessAllowed(subject, { objectOrganization: [{ id: 'org--1' }] })).toBe(true)
    expect(accessAllowed(subject, { authorized_members: [{ id: 'user--b' }] })).toBe(false)
    expect(accessAllowed(subject, { restricted_members: ['user--a'] })).toBe(true)
  })

  it('compare: each dimension names what differs', () => {
    const base: ParitySnapshot = {
      high_water_sequence: 5,
      records: { a: '1', b: '2' },
      relationships: { r: '3' },
      full_text: [{ query: 'q', hits: [['a', '1.000000000']] }],
      access: [['s', 'a', true]],
      index_generations: { records: 2, relationships: 1, full_text_documents: 2 },
      receipts_missing: [],
    }
    expect(compareSnapshots(base, base, 't', 3)).toMatchObject({ verified: true, high_water_sequence: 5 })
    const theirs: ParitySnapshot = {
      ...base,
      high_water_sequence: 9,
      records: { a: '1', b: 'x', c: '4' },
      full_text: [{ query: 'q', hits: [] }],
      access: [['s', 'a', false]],
      index_generations: { ...base.index_generations, records: 3 },
      receipts_missing: ['sha256:k'],
    }
    const report = compareSnapshots(base, theirs, 't', 3)
    expect(report.verified).toBe(false)
    expect(report.reference_high_water_sequence).toBe(9)
    expect(report.dimensions).toEqual({
      records: { ok: false, compared: 3, mismatches: ['b', 'c'] },
      relationships: { ok: true, compared: 1, mismatches: [] },
      full_text: { ok: false, compared: 1, mismatches: ['q'] },
      access: { ok: false, compared: 1, mismatches: ['s on a'] },
      index_generations: { ok: false, compared: 3, mismatches: ['records: 2 here, 3 at the reference'] },
      replay_receipts: { ok: false, compared: 3, mismatches: ['sha256:k'] },
    })
  })
})
