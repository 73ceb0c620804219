/**
 * Bulk creates killed mid-flight: a projecting primary (its reference unreachable, so every applied write
 * stays pending in the outbox) takes several bulk writes at once and is killed with SIGKILL as the first is
 * acknowledged. After restart each bulk is all or nothing, every acknowledged one is whole, and draining
 * to a real reference delivers exactly the records the primary holds: the pending requests, logged by
 * reference to their create ops, come back whole from the log.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { refBulkCreates } from '@service/core/testing'
import { afterAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, type RunningServer, startServer, TOKEN } from './harness.js'
import { persistentRefEnv, refWriter } from './ref-support.js'

const BULKS = 40
const NODES = 250
const RELS = 750

const dirs: string[] = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-ref-bulk-kill-'))
  dirs.push(dir)
  return join(dir, 'graph')
}
const servers: RunningServer[] = []
afterAll(async () => {
  for (const server of servers.splice(0)) await server.kill()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})
async function start(env: Record<string, string>): Promise<RunningServer> {
  const server = await startServer({ env })
  servers.push(server)
  return server
}

const primaryEnv = (dir: string, referenceUrl: string) => ({
  ...persistentRefEnv(dir),
  SERVICE_OPENCTI_SYNC_MAX_OPERATIONS: String(NODES + RELS),
  SERVICE_REF_SHADOW_REFERENCE_ENDPOINT: `${referenceUrl}/v1/ref/writes`,
  SERVICE_REF_SHADOW_REFERENCE_AUTH_TOKEN: TOKEN,
  SERVICE_REF_SHADOW_TIMEOUT_MS: '2000',
  SERVICE_REF_SHADOW_MAX_CONCURRENCY: '4',
})

const recordIds = async (server: RunningServer): Promise<string[]> =>
  (
    await server.request<{ result: { records: { id: string }[] } }>('/v1/admin/ref/reconstruction', {
      method: 'POST',
      token: ADMIN_TOKEN,
    })
  ).json.result.records
    .map((r) => r.id)
    .sort()

/** Records per bulk, by the bulk's prefix (`b<i>-`) in their ids. */
function perBulk(ids: string[]): number[] {
  const counts = new Array<number>(BULKS).fill(0)
  for (const id of ids) {
    const match = /--b(\d+)-/.exec(id)
    if (match !== null) counts[Number(match[1])] = (counts[Number(match[1])] ?? 0) + 1
  }
  return counts
}

describe('bulk creates killed mid-flight', () => {
  it('come back all or nothing, acknowledged ones whole, and project exactly what the primary holds', async () => {
    const { write } = refWriter('bulk-kill-')
    const dir = tempDir()
    // Nothing listens on port 9 of the loopback: every projection attempt fails, entries stay pending.
    const first = await start(primaryEnv(dir, 'http://127.0.0.1:9'))
    // Three writers send bulks back to back; the process is killed once four are acknowledged, while the
    // next ones are on their way in or being committed. They keep sending until it is dead: a writer that
    // stopped at the kill left nothing in flight when the bulks committed faster than the signal landed.
    const acknowledged: number[] = []
    let sent = 0
    let killed: Promise<void> | null = null
    let dead = false
    const writer = async () => {
      while (!dead && sent < BULKS) {
        const b = sent++
        const answer = await first
          .request<{ outcome?: { status: string } }>('/v1/ref/writes', {
            body: write('bulk', { atomic: true, operations: refBulkCreates(`b${b}-`, NODES, RELS) }),
          })
          .catch(() => null) // the connection died with the process
        if (answer?.status === 200 && answer.json.outcome?.status === 'success') acknowledged.push(b)
        if (acknowledged.length >= 4)
          killed ??= first.kill().then(() => {
            dead = true
          })
      }
    }
    await Promise.all([writer(), writer(), writer()])
    await killed
    expect(acknowledged.length).toBeGreaterThanOrEqual(4)
    expect(acknowledged.length).toBeLessThan(sent)

    const reference = await start({
      ...persistentRefEnv(tempDir()),
      SERVICE_OPENCTI_SYNC_MAX_OPERATIONS: String(NODES + RELS),
    })
    const second = await start(primaryEnv(dir, reference.url))
    const held = await recordIds(second)
    const counts = perBulk(held)
    for (const [b, count] of counts.entries()) {
      expect([0, NODES + RELS], `bulk ${b}`).toContain(count)
      if (acknowledged.includes(b)) expect(count, `acknowledged bulk ${b}`).toBe(NODES + RELS)
    }
    const drained = await second.request<{ result: Record<string, unknown> }>(
      '/v1/admin/ref/projection/drain',
      { method: 'POST', token: ADMIN_TOKEN },
    )
    expect(drained.json.result).toMatchObject({ projection_lag: 0, projection_quarantined: 0 })
    expect(await recordIds(reference)).toEqual(held)
  })
})
