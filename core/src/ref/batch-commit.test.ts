/**
 * The group commit of the batch form (batch-commit.ts): one intent record and one payload record for a run
 * of writes, the stop rules of the single form, a discarded write cut out of the group, and recovery.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { type Engine, openEngine } from '../runtime/index.js'
import { refCreate, refRelationship, refWriteRequest } from '../testing/ref-requests.js'

const dirs: string[] = []
const engines: Engine[] = []
afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})
async function open(
  dir = mkdtempSync(join(tmpdir(), 'ref-group-')),
): Promise<{ engine: Engine; dir: string }> {
  if (!dirs.includes(dir)) dirs.push(dir)
  const engine = await openEngine({ storage: { mode: 'persistent', dir }, ref: { maxOperations: 64 } })
  engines.push(engine)
  return { engine, dir }
}
const rel = refRelationship
const ids = async (engine: Engine) => (await engine.ref.reconstruction()).records.map((r) => r.id).sort()
const status = (a: { result: string; response?: { outcome: { status: string } } }) =>
  a.result === 'answered' ? `${a.result}:${a.response?.outcome.status}` : a.result
/** The WAL's records, in order, as their ledger entry kinds. */
function walKinds(dir: string): string[][] {
  const kinds: string[][] = []
  for (const file of readdirSync(join(dir, 'wal')).sort())
    for (const line of readFileSync(join(dir, 'wal', file), 'utf8').split('\n'))
      if (line !== '') {
        const body = JSON.parse(line).body as { ledgers?: { entry: { k: string } }[] }
        kinds.push((body.ledgers ?? []).map((l) => l.entry.k))
      }
  return kinds
}

describe('group commit of a batch', () => {
  it('writes one intent record and one payload record for the run; each write keeps its receipt', async () => {
    const { engine, dir } = await open()
    const before = walKinds(dir).length
    const batch = [refCreate('malware--g1'), refCreate('malware--g2'), refCreate('malware--g3')]
    const answers = await engine.ref.writeBatch(batch)
    expect(answers.map(status)).toEqual(['answered:success', 'answered:success', 'answered:success'])
    expect(walKinds(dir).slice(before)).toEqual([
      ['intent', 'intent', 'intent'],
      ['commit', 'write', 'commit', 'write', 'commit', 'write'],
    ])
    // Each is its own write: a retry of the second alone is answered from its receipt.
    const again = await engine.ref.write(batch[1])
    expect(again).toEqual(answers[1]?.result === 'answered' && answers[1].response)
    expect(engine.ref.counters().idempotent_replays).toBe(1)
  })

  it('an atomic write that rolls back part-way is cut out: the prefix commits, the rest is skipped', async () => {
    const { engine } = await open()
    const answers = await engine.ref.writeBatch([
      refCreate('malware--a1'),
      refWriteRequest('create', { record: rel('relationship--r1', 'malware--a1', 'malware--a1') }),
      // Atomic: its relationship is created, then the duplicate create fails and the whole write rolls back.
      refWriteRequest('bulk', {
        atomic: true,
        operations: [
          { operation: 'create', record: rel('relationship--r2', 'malware--a1', 'malware--a1') },
          { operation: 'create', record: { id: 'malware--a1', type: 'malware' } },
        ],
      }),
      refCreate('malware--a4'),
    ])
    expect(answers.map(status)).toEqual([
      'answered:success',
      'answered:success',
      'answered:success', // a bulk answers success with its items' statuses
      'skipped',
    ])
    const bulk = answers[2]
    if (bulk?.result !== 'answered') throw new Error('the bulk write has no answer')
    const items = (bulk.response.outcome as { response: { data: { results: { status: string }[] } } })
      .response.data.results
    expect(items.map((i) => i.status)).toEqual(['aborted', 'conflict'])
    expect(await ids(engine)).toEqual(['malware--a1', 'relationship--r1'])
    // The relationship index kept the prefix's relationship and forgot the discarded one.
    expect(
      (
        await engine.ref.write(
          refWriteRequest('create', { record: rel('relationship--r1', 'malware--a1', 'malware--a1') }),
        )
      ).outcome,
    ).toMatchObject({ status: 'failure', error: { code: 'CONFLICT' } })
    const r2 = await engine.ref.write(
      refWriteRequest('create', { record: rel('relationship--r2', 'malware--a1', 'malware--a1') }),
    )
    expect(r2.outcome.status).toBe('success')
    // The skipped write holds no receipt and no outbox entry: sent again, it applies.
    expect(engine.ref.status().result).toMatchObject({ projection_lag: 0 })
  })

  it('a write past its deadline stops the run before anything of it is written', async () => {
    const { engine } = await open()
    const answers = await engine.ref.writeBatch([
      refCreate('malware--d1'),
      refWriteRequest('create', { record: { id: 'malware--d2', type: 'malware' } }, undefined, {
        deadline_unix_ms: Date.now() - 1000,
      }),
      refCreate('malware--d3'),
    ])
    expect(answers.map((a) => a.result)).toEqual(['answered', 'refused', 'skipped'])
    expect(answers[1]?.result === 'refused' && answers[1].error.code).toBe('REF_PRIMARY_WRITE_TIMEOUT')
    expect(await ids(engine)).toEqual(['malware--d1'])
  })

  it('a key repeated inside one batch is refused as still in progress; the earlier writes commit', async () => {
    const { engine } = await open()
    const answers = await engine.ref.writeBatch([
      refCreate('malware--k1', 'same-key'),
      refCreate('malware--k2', 'same-key'),
      refCreate('malware--k3'),
    ])
    expect(answers.map((a) => a.result)).toEqual(['answered', 'refused', 'skipped'])
    expect(await ids(engine)).toEqual(['malware--k1'])
  })

  it('a group survives a restart: receipts, records and the sequence carry on', async () => {
    const { engine, dir } = await open()
    const batch = [refCreate('malware--p1'), refCreate('malware--p2')]
    const answers = await engine.ref.writeBatch(batch)
    await engine.close()
    engines.splice(engines.indexOf(engine), 1)
    const reopened = (await open(dir)).engine
    expect(await ids(reopened)).toEqual(['malware--p1', 'malware--p2'])
    expect(await reopened.ref.writeBatch(batch)).toEqual(answers)
    const next = await reopened.ref.write(refCreate('malware--p3'))
    expect(next.outcome.status).toBe('success')
  })
})
