/**
 * The rollback, forward and back, with evidence the service computes itself (issue 29), driven by the
 * runbook's own commands: every `# runbook:` block of docs/runbooks/ref-rollback.md runs here with bash
 * against real processes — a persistent primary projecting through a fault proxy to a second instance of
 * this service that plays the reference platform, and a clean third one rebuilt from the reconstruction.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, type ErrorBody, type RunningServer, repoRoot, startServer, TOKEN } from './harness.js'
import { type FaultProxy, startFaultProxy } from './ref-proxy.js'
import { malware, persistentRefEnv, projectingRefEnv, refWriter, rel } from './ref-support.js'

const run = promisify(execFile)
const dirs: string[] = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-rollback-'))
  dirs.push(dir)
  return dir
}

// ---- the runbook's blocks --------------------------------------------------------------------------

const RUNBOOK = readFileSync(join(repoRoot, 'docs', 'runbooks', 'ref-rollback.md'), 'utf8')
const BLOCKS = new Map(
  [...RUNBOOK.matchAll(/```sh\n# runbook: ([a-z-]+)\n([\s\S]*?)```/g)].map((m) => [
    m[1] as string,
    m[2] as string,
  ]),
)
const ran = new Set<string>()

/** Runs one runbook block (after the helpers) with bash; `jq -e` makes a failed check a failed command. */
async function runbook(tag: string, env: { svc: string; ref: string }, cwd: string): Promise<string> {
  const block = BLOCKS.get(tag)
  if (block === undefined) throw new Error(`the runbook has no block '# runbook: ${tag}'`)
  const script = `set -euo pipefail\n${BLOCKS.get('helpers') ?? ''}\n${block}`
  ran.add('helpers')
  ran.add(tag)
  try {
    const { stdout } = await run('bash', ['-c', script], {
      cwd,
      env: {
        PATH: process.env.PATH ?? '',
        SVC: env.svc,
        REF: env.ref,
        ADMIN: ADMIN_TOKEN,
        REF_ADMIN: ADMIN_TOKEN,
        TOKEN,
      },
    })
    return stdout
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; code?: number }
    throw new Error(`runbook block '${tag}' failed (exit ${e.code}): ${e.stderr ?? ''}\n${e.stdout ?? ''}`)
  }
}

// ---- writes and admin calls ----------------------------------------------------------------------

const persistent = (dir: string) => ({ ...persistentRefEnv(dir), SERVICE_LOG_LEVEL: 'warn' })
const { write } = refWriter('rb-')

interface WriteAnswer {
  outcome: { status: string; response?: { data: Record<string, unknown> }; error?: { code: string } }
}
interface StatusBody {
  result: Record<string, number | boolean | string | null>
  projections: { sequence: number; status: string }[]
}
interface Report {
  verified: boolean
  high_water_sequence: number
  dimensions: Record<
    'records' | 'relationships' | 'full_text' | 'access' | 'index_generations' | 'replay_receipts',
    { ok: boolean; compared: number; mismatches: string[] }
  >
}

const post = async (server: RunningServer, body: unknown) => {
  const answer = await server.request<WriteAnswer>('/v1/ref/writes', { body })
  return answer
}
/** A write that must succeed; returns its response data. */
const ok = async (server: RunningServer, body: unknown) => {
  const answer = await post(server, body)
  expect(answer.status).toBe(200)
  expect(answer.json.outcome.status).toBe('success')
  return answer.json.outcome.response?.data ?? {}
}
const admin = <T>(server: RunningServer, path: string, body?: unknown) =>
  server.request<T>(`/v1/admin/ref/${path}`, {
    method: 'POST',
    token: ADMIN_TOKEN,
    ...(body === undefined ? {} : { body }),
  })
const status = async (server: RunningServer) =>
  (await server.request<StatusBody>('/v1/ref/writes/status')).json
const PARITY = {
  queries: ['Malware', 'report'],
  subjects: [
    {
      subject_id: 'user--analyst',
      organization_ids: ['identity--org-a'],
      marking_ids: ['marking-definition--tlp-green'],
    },
    { subject_id: 'user--guest', organization_ids: [], marking_ids: [] },
  ],
  record_ids: ['malware--a', 'report--r', 'relationship--ad'],
}
const parity = async (server: RunningServer) => {
  const answer = await admin<{ result: Report }>(server, 'parity', PARITY)
  expect(answer.status).toBe(200)
  return answer.json.result
}
const assign = (server: RunningServer, target: string) =>
  admin<{ authority?: string; error?: { code: string; message: string } }>(server, 'authority', {
    target,
    reference_healthy: true,
    replay_complete: true,
    parity_verified: true,
  })
/** Revisions of the canonical records, by id, as the reconstruction reports them. */
const revisions = async (server: RunningServer) =>
  (await admin<{ result: { revisions: Record<string, number> } }>(server, 'reconstruction')).json.result
    .revisions

let original: RunningServer
let rebuilt: RunningServer
let proxy: FaultProxy
let primary: RunningServer
let work: string

beforeAll(async () => {
  original = await startServer({ env: persistent(tempDir()) })
  proxy = await startFaultProxy(original.url)
  primary = await startServer({
    env: { ...projectingRefEnv(tempDir(), proxy.url), SERVICE_LOG_LEVEL: 'warn' },
  })
  work = tempDir()
}, 60_000)

afterAll(async () => {
  await primary?.kill()
  await original?.kill()
  await rebuilt?.kill()
  await proxy?.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

describe('the reference rollback, run from the runbook with evidence the service computes', () => {
  it('a clean reference rebuilt from the reconstruction keeps revisions and takes further projected updates and merges without quarantine', async () => {
    const green = ['marking-definition--tlp-green']
    await ok(primary, write('create', { record: malware('malware--a', { object_marking_refs: green }) }))
    await ok(
      primary,
      write('create', { record: malware('malware--b', { granted_refs: ['identity--org-a'] }) }),
    )
    await ok(primary, write('create', { record: malware('malware--d') }))
    await ok(
      primary,
      write('create', {
        record: { id: 'report--r', type: 'report', name: 'report on b', object_refs: ['malware--b'] },
      }),
    )
    await ok(primary, write('create', { record: rel('relationship--ad', 'malware--a', 'malware--d') }))
    await ok(primary, write('create', { record: rel('relationship--bd', 'malware--b', 'malware--d') }))
    for (let i = 1; i <= 3; i++)
      await ok(
        primary,
        write('update', { id: 'malware--a', expected_revision: i, patch: { description: `v${i}` } }),
      )
    await ok(primary, write('merge', { target_id: 'malware--a', source_ids: ['malware--b'] }))
    let s = (await admin<StatusBody>(primary, 'projection/drain')).json
    expect(s.result).toMatchObject({ projection_lag: 0, projection_quarantined: 0 })

    // The reference is lost with two writes still pending.
    proxy.mode = 'outage'
    await ok(
      primary,
      write('update', { id: 'malware--d', patch: { description: 'pending at reconstruction' } }),
    )
    await ok(primary, write('create', { record: malware('malware--e') }))
    expect((await status(primary)).result.projection_lag).toBe(2)

    // Step 3 of the runbook: reconstruct, load into a clean reference, point the endpoint at it, drain.
    rebuilt = await startServer({ env: persistent(tempDir()) })
    const out = await runbook('reconstruct', { svc: primary.url, ref: rebuilt.url }, work)
    const summary = JSON.parse(out.slice(0, out.lastIndexOf('}') + 1)) as {
      records: number
      receipts: number
    }
    expect(summary.receipts).toBeGreaterThanOrEqual(2)
    const corpus = JSON.parse(readFileSync(join(work, 'corpus.json'), 'utf8')) as {
      revisions: Record<string, number>
      records: Record<string, unknown>[]
    }
    expect(corpus.revisions['malware--a']).toBe(5) // create, three updates, the merge
    expect(corpus.records.find((r) => r.id === 'malware--a')?.x_service_merged_ids).toEqual(['malware--b'])
    expect(await revisions(rebuilt)).toEqual(await revisions(primary))
    proxy.target = rebuilt.url
    proxy.mode = 'pass'
    await runbook('drain-rebuilt', { svc: primary.url, ref: rebuilt.url }, work)
    // The two entries the corpus already held were answered from their receipts, not applied twice.
    expect((await status(rebuilt)).result.idempotent_replays).toBeGreaterThanOrEqual(2)

    // Further projected updates (with expected revisions), a relationship and a merge: all delivered.
    const current = await revisions(primary)
    await ok(
      primary,
      write('update', {
        id: 'malware--a',
        expected_revision: current['malware--a'],
        patch: { description: 'after rebuild' },
      }),
    )
    await ok(
      primary,
      write('update', {
        id: 'relationship--ad',
        expected_revision: current['relationship--ad'],
        patch: { description: 'edge' },
      }),
    )
    await ok(
      primary,
      write('bulk', {
        atomic: true,
        operations: [
          {
            operation: 'access_policy_update',
            id: 'malware--d',
            expected_revision: current['malware--d'],
            patch: { object_marking_refs: green },
          },
        ],
      }),
    )
    await ok(primary, write('create', { record: rel('relationship--ed', 'malware--e', 'malware--d') }))
    await ok(
      primary,
      write('merge', {
        target_id: 'malware--d',
        source_ids: ['malware--e'],
        expected_revisions: { 'malware--e': 1 },
      }),
    )
    s = (await admin<StatusBody>(primary, 'projection/drain')).json
    expect(s.result).toMatchObject({
      projection_lag: 0,
      projection_quarantined: 0,
      write_authority: 'service_primary',
    })
    expect(s.projections.every((p) => p.status === 'delivered')).toBe(true)
    const report = await parity(primary)
    expect(report.dimensions.records).toMatchObject({ ok: true, mismatches: [] })
    expect(report).toMatchObject({ verified: true })
    expect(report.dimensions.full_text.compared).toBe(2)
    expect(report.dimensions.access.compared).toBe(6)
  })

  it('an assignment the evidence contradicts is refused, naming the evidence', async () => {
    await admin(primary, 'authority/suspend', { trigger: 'latency_regression' })
    // The reference accepts a write of its own after the last report: the report no longer holds.
    await ok(rebuilt, write('create', { record: malware('malware--rogue') }))
    let refused = await assign(primary, 'reference_primary')
    expect([refused.status, refused.json.error?.code]).toEqual([400, 'REF_AUTHORITY_GATE_FAILED'])
    expect(refused.json.error?.message).toMatch(
      /evidence contradicts parity_verified: the reference moved to sequence \d+/,
    )
    // A new report sees the difference and names it; the assignment is refused on it.
    const report = await parity(primary)
    expect(report.verified).toBe(false)
    expect(report.dimensions.records.mismatches).toEqual(['malware--rogue'])
    expect(report.dimensions.index_generations.ok).toBe(false)
    refused = await assign(primary, 'reference_primary')
    expect(refused.json.error?.message).toMatch(
      /evidence contradicts parity_verified: the last parity report differs in records \(malware--rogue\)/,
    )
    // The reference is repaired; now its readiness probe fails.
    await ok(rebuilt, write('delete', { id: 'malware--rogue' }))
    expect((await parity(primary)).verified).toBe(true)
    proxy.mode = 'outage'
    refused = await assign(primary, 'reference_primary')
    expect(refused.json.error?.message).toMatch(
      /evidence contradicts reference_healthy: the readiness probe failed/,
    )
    expect(refused.json.error?.message).toMatch(
      /evidence contradicts replay_complete: the reference's receipts could not be read/,
    )
    proxy.mode = 'pass'
    // Back to the service without a handover: only the flags and the outbox gate it.
    expect((await assign(primary, 'service_primary')).json.authority).toBe('service_primary')
  })

  it('runs forward (suspend, drain, parity, assign) and back (return path, parity, assign) from the runbook', async () => {
    const env = { svc: primary.url, ref: rebuilt.url }
    proxy.mode = 'divergent'
    await ok(primary, write('create', { record: malware('malware--div') }))
    const diverged = (await admin<StatusBody>(primary, 'projection/drain')).json
    expect(diverged.result).toMatchObject({ projection_quarantined: 1, write_authority: 'writes_suspended' })
    proxy.mode = 'pass'

    await runbook('suspend', env, work)
    await runbook('drain', env, work)
    await runbook('parity', env, work)
    await runbook('assign-reference', env, work)
    expect((await status(primary)).result).toMatchObject({
      write_authority: 'reference_primary',
      projection_quarantined: 0,
    })
    const refusedHere = await post(primary, write('create', { record: malware('malware--nope') }))
    expect([refusedHere.status, (refusedHere.json as unknown as ErrorBody).error.code]).toEqual([
      503,
      'REF_PRIMARY_WRITE_SUSPENDED',
    ])

    // Writers now write to the reference: a create, an update with its expected revision, a merge.
    const at = (await admin<{ result: { revisions: Record<string, number> } }>(rebuilt, 'reconstruction'))
      .json.result.revisions
    await ok(
      rebuilt,
      write('create', {
        record: malware('malware--ref1', { object_marking_refs: ['marking-definition--tlp-green'] }),
      }),
    )
    await ok(
      rebuilt,
      write('update', {
        id: 'malware--a',
        expected_revision: at['malware--a'],
        patch: { description: 'written at the reference' },
      }),
    )
    await ok(rebuilt, write('create', { record: malware('malware--ref2') }))
    await ok(rebuilt, write('merge', { target_id: 'malware--ref1', source_ids: ['malware--ref2'] }))

    // Not before the return path has run.
    let back = await assign(primary, 'service_primary')
    expect([back.status, back.json.error?.code]).toEqual([400, 'REF_AUTHORITY_GATE_FAILED'])
    expect(back.json.error?.message).toMatch(
      /evidence contradicts replay_complete: the return path has not run/,
    )
    // A return while the reference still takes writes: what comes after it is not returned yet.
    const early = await admin<{ result: { replayed: number } }>(primary, 'return')
    expect(early.json.result.replayed).toBe(4)
    await ok(
      rebuilt,
      write('update', { id: 'malware--ref1', expected_revision: 2, patch: { description: 'late' } }),
    )
    back = await assign(primary, 'service_primary')
    expect(back.json.error?.message).toMatch(
      /evidence contradicts replay_complete: the reference accepted writes above sequence \d+/,
    )

    // The runbook's way back: stop writes at the reference, return, parity, assign, reopen the reference.
    await runbook('stop-reference-writes', env, work)
    await runbook('return', env, work)
    const returned = (await status(primary)).result
    expect(returned.projection_lag).toBe(0) // replays are not projected back
    await runbook('parity-after-return', env, work)
    await runbook('assign-service', env, work)
    await runbook('reopen-reference', env, work)

    // The reference's writes are here with the reference's revisions, and projection goes on.
    const ours = await revisions(primary)
    const theirs = await revisions(rebuilt)
    expect(ours).toEqual(theirs)
    expect(ours['malware--ref1']).toBe(3)
    expect(ours['malware--ref2']).toBeUndefined()
    await ok(
      primary,
      write('update', { id: 'malware--ref1', expected_revision: 3, patch: { name: 'back home' } }),
    )
    const s = (await admin<StatusBody>(primary, 'projection/drain')).json
    expect(s.result).toMatchObject({
      projection_lag: 0,
      projection_quarantined: 0,
      write_authority: 'service_primary',
    })
    expect((await parity(primary)).verified).toBe(true)
  })

  it('ran every command block of the runbook', () => {
    // Every sh block is tagged, so none escapes the test.
    expect(RUNBOOK.match(/```sh\n/g)?.length).toBe(BLOCKS.size)
    expect([...ran].sort()).toEqual([...BLOCKS.keys()].sort())
  })
})

describe('rollback errors reached from outside', () => {
  it('parity, load and return refuse with their codes', async () => {
    // A store with no reference configured cannot compute parity or return.
    const noRef = await admin<ErrorBody>(original, 'parity', PARITY)
    expect([noRef.status, noRef.json.error.code]).toEqual([409, 'REF_REFERENCE_NOT_CONFIGURED'])
    // The reference does not answer.
    proxy.mode = 'outage'
    const down = await admin<ErrorBody>(primary, 'parity', PARITY)
    expect([down.status, down.json.error.code]).toEqual([503, 'REF_REFERENCE_UNAVAILABLE'])
    proxy.mode = 'pass'
    // The return path outside reference_primary.
    const notPrimary = await admin<ErrorBody>(primary, 'return')
    expect([notPrimary.status, notPrimary.json.error.code]).toEqual([409, 'REF_RETURN_FAILED'])
    // A load into a store that holds records, and a corpus that does not hold together.
    const corpus = (await admin<{ result: unknown }>(primary, 'reconstruction')).json.result
    const full = await admin<ErrorBody>(original, 'reconstruction/load', corpus)
    expect([full.status, full.json.error.code]).toEqual([409, 'REF_RECONSTRUCTION_TARGET_NOT_EMPTY'])
    const clean = await startServer({ env: persistent(tempDir()) })
    try {
      const broken = await admin<ErrorBody>(clean, 'reconstruction/load', {
        high_water_sequence: 1,
        records: [rel('relationship--x', 'malware--gone', 'malware--gone2')],
        revisions: { 'relationship--x': 1 },
        receipts: [],
      })
      expect([broken.status, broken.json.error.code]).toEqual([400, 'REF_RECONSTRUCTION_INVALID'])
      expect(broken.json.error.message).toContain('malware--gone')
    } finally {
      await clean.kill()
    }
  })
})
