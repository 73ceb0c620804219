import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from './harness.js'
import { faketimeControl, faketimePresent, persistentEnv, toolPresent } from './storage-faults-support.js'

const faketime = toolPresent('libfaketime (faketime)', faketimePresent())

interface Ok<T> {
  ok: true
  result: T
}
interface Boundary {
  boundary_id: string
  parent_id: string | null
  sequence: number
}
interface TreeNode {
  boundary: Boundary
  children: TreeNode[]
}
interface Logs {
  total_matched_entries: number
  entries: { timestamp: number; fields: { event: string; query?: string } }[]
}

const WORKSPACE = 'workspace--clock'
const chain = (roots: TreeNode[]): Boundary[] => {
  const out: Boundary[] = []
  for (let node: TreeNode | undefined = roots[0]; node !== undefined; node = node.children[0])
    out.push(node.boundary)
  return out
}

/** Every WAL record's sequence and time, in file order. */
function walRecords(dir: string): { seq: number; at: number }[] {
  const wal = join(dir, 'wal')
  return readdirSync(wal)
    .filter((name) => name.endsWith('.jsonl'))
    .sort()
    .flatMap((name) =>
      readFileSync(join(wal, name), 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as { seq: number; at: number }),
    )
}

async function timeline(server: RunningServer, session: string): Promise<Boundary[]> {
  const res = await server.request<Ok<{ roots: TreeNode[] }>>(`/v1/explorer/sessions/${session}/timeline`)
  expect(res.status).toBe(200)
  return chain(res.json.result.roots)
}

describe.skipIf(!faketime)('wall-clock jumps in the running server (libfaketime)', () => {
  it('never reorder the WAL sequence, the session timeline or the audit log, before and after a restart', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'faults-clock-')), 'graph')
    const clock = join(mkdtempSync(join(tmpdir(), 'clock-')), 'faketime')
    writeFileSync(clock, '+0\n')
    const env = { ...persistentEnv(dir), ...faketimeControl(clock) }
    let server = await startServer({ env })
    const acknowledged = new Set<string>()
    const jumps = ['+0', '-1d', '+0', '+3d', '-2h', '+10y', '-10y']
    let session = ''
    let before: Boundary[] = []
    try {
      session = (
        await server.request<Ok<{ session_id: string }>>('/v1/sessions/start', {
          body: { workspace_id: WORKSPACE, actor_id: 'actor--clock' },
        })
      ).json.result.session_id
      for (const [i, jump] of jumps.entries()) {
        writeFileSync(clock, `${jump}\n`)
        const k = `jump-${i}`
        const res = await server.request<Ok<{ status: string }>>('/v1/cypher/write', {
          body: {
            query: 'CREATE (a:Item {k: $k, part: 1})-[:PAIR {k: $k}]->(b:Item {k: $k, part: 2})',
            params: { k },
            session_id: session,
            workspace_id: WORKSPACE,
          },
        })
        expect(res.status).toBe(200)
        acknowledged.add(k)
      }
      writeFileSync(clock, '+0\n')
      before = await timeline(server, session)
      expect(before).toHaveLength(jumps.length)
      for (let i = 1; i < before.length; i++) {
        expect(before[i]!.sequence).toBeGreaterThan(before[i - 1]!.sequence)
        expect(before[i]!.parent_id).toBe(before[i - 1]!.boundary_id)
      }
      const logs = await server.request<Ok<Logs>>(`/v1/sessions/${session}/logs?limit=1000`)
      expect(logs.status).toBe(200)
      const queries = logs.json.result.entries.filter((e) => e.fields.query !== undefined)
      expect(queries.length).toBeGreaterThanOrEqual(jumps.length)
    } finally {
      await server.stop()
    }
    // The log's sequence is dense and increasing whatever the wall clock said; the times are what it said.
    const records = walRecords(dir)
    for (let i = 1; i < records.length; i++) expect(records[i]!.seq).toBe(records[i - 1]!.seq + 1)
    expect(records.some((r, i) => i > 0 && r.at < records[i - 1]!.at)).toBe(true)
    server = await startServer({ env })
    try {
      expect(await timeline(server, session)).toEqual(before)
      const all = new Set([...acknowledged])
      const res = await server.request<Ok<{ data: { rows: unknown[][] } }>>('/v1/cypher/read', {
        body: { query: 'MATCH (n:Item) RETURN count(n) AS c', workspace_id: WORKSPACE },
      })
      expect(res.json.result.data.rows[0]?.[0]).toBe(2 * all.size)
    } finally {
      await server.stop()
    }
  })
})
