import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from './harness.js'
import {
  eventually,
  fiuControl,
  fiuPresent,
  persistentEnv,
  readyStatus,
  toolPresent,
} from './storage-faults-support.js'

const fiu = toolPresent('fiu-run (libfiu)', fiuPresent())

interface Ok<T> {
  ok: true
  result: T
}
interface Logs {
  total_matched_entries: number
  audit_parity: { input_events: number; output_events: number; parity_ok: boolean }
}

const WORKSPACE = 'workspace--faults'
const start = (server: RunningServer) =>
  server.request<Ok<{ session_id: string }> & { error?: { code: string } }>('/v1/sessions/start', {
    body: { workspace_id: WORKSPACE, actor_id: 'actor--faults' },
  })
const write = (server: RunningServer, session: string, i: number) =>
  server.request<{ error?: { code: string } }>('/v1/cypher/write', {
    body: { query: 'CREATE (:Audited {i: $i})', params: { i }, session_id: session, workspace_id: WORKSPACE },
  })
const logs = (server: RunningServer, session: string) =>
  server.request<Ok<Logs>>(`/v1/sessions/${session}/logs?limit=1000`)

describe.skipIf(!fiu)('sessions and their audit log under a failed fdatasync (libfiu)', () => {
  it('refuses new sessions and audited writes, serves session reads, resumes in place, and recovers whole', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'faults-sessions-')), 'graph')
    const control = fiuControl()
    let server = await startServer({ env: { ...persistentEnv(dir), ...control.env } })
    let session = ''
    let after: Logs
    try {
      session = (await start(server)).json.result.session_id
      expect((await write(server, session, 0)).status).toBe(200)
      await control.send(server, 'enable name=posix/io/sync/fdatasync,failinfo=5')
      const refused = await write(server, session, 1)
      expect({ status: refused.status, code: refused.json.error?.code }).toEqual({
        status: 503,
        code: 'DURABILITY_FAILED',
      })
      const refusedStart = await start(server)
      expect({ status: refusedStart.status, code: refusedStart.json.error?.code }).toEqual({
        status: 503,
        code: 'DURABILITY_FAILED',
      })
      // Session reads go on: its log, as durable, with the acknowledged write's audit pair.
      const during = await logs(server, session)
      expect(during.status).toBe(200)
      expect(during.json.result.audit_parity).toMatchObject({
        input_events: 1,
        output_events: 1,
        parity_ok: true,
      })
      await control.send(server, 'disable name=posix/io/sync/fdatasync')
      await eventually(async () => (await readyStatus(server)) === 200)
      expect((await write(server, session, 2)).status).toBe(200)
      expect((await start(server)).status).toBe(200)
      after = (await logs(server, session)).json.result
      expect(after.audit_parity.parity_ok).toBe(true)
      expect(after.audit_parity.input_events).toBe(2)
    } finally {
      await server.stop()
    }
    server = await startServer({ env: persistentEnv(dir) })
    try {
      const recovered = await logs(server, session)
      expect(recovered.json.result.audit_parity).toEqual(after.audit_parity)
      const nodes = await server.request<Ok<{ data: { rows: unknown[][] } }>>('/v1/cypher/read', {
        body: { query: 'MATCH (n:Audited) RETURN n.i AS i ORDER BY i', workspace_id: WORKSPACE },
      })
      expect(nodes.json.result.data.rows).toEqual([[0], [2]])
    } finally {
      await server.stop()
    }
  })
})
