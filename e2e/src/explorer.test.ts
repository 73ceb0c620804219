import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ErrorBody, type RunningServer, startServer } from './harness.js'

interface Ok<T> {
  ok: true
  result: T
}
interface Boundary {
  boundary_id: string
  kind: string
  parent_id: string | null
  transaction_id: string | null
  sequence: number
}
interface TreeNode {
  boundary: Boundary
  children: TreeNode[]
}
interface Projection {
  boundary: { kind: string; boundary_id?: string }
  nodes: {
    id: string
    labels: string[]
    properties: Record<string, { type: string; value?: unknown }>
    version: number
  }[]
  relationships: { id: string; source: string; target: string; relationship_type: string }[]
  metadata: {
    partial: boolean
    returned_nodes: number
    omitted_nodes: number
    omitted_relationships: number
    omitted_properties: number
    computation_units: number
  }
}

const chain = (roots: TreeNode[]): Boundary[] => {
  const out: Boundary[] = []
  let level = roots
  while (level.length > 0) {
    out.push(level[0]!.boundary)
    level = level[0]!.children
  }
  return out
}

describe('temporal explorer', () => {
  let server: RunningServer
  let session: string
  let timeshots: Boundary[]
  const dir = join(mkdtempSync(join(tmpdir(), 'explorer-')), 'graph')
  const env = { SERVICE_STORAGE_MODE: 'persistent', SERVICE_STORAGE_DIR: dir }
  const write = (query: string) =>
    server.request('/v1/cypher/write', {
      body: { query, session_id: session, workspace_id: 'workspace--explorer' },
    })
  const graph = (query: string) =>
    server.request<Ok<Projection>>(`/v1/explorer/sessions/${session}/graph${query}`)

  beforeAll(async () => {
    server = await startServer({ env })
    session = (
      await server.request<Ok<{ session_id: string }>>('/v1/sessions/start', {
        body: { workspace_id: 'workspace--explorer', actor_id: 'analyst' },
      })
    ).json.result.session_id
    await write("CREATE (:ThreatActor {name: 'APT1', confidence: 0.9, first_seen: '2013-02-01T00:00:00Z'})")
    await write(
      "MATCH (a:ThreatActor) CREATE (a)-[:Uses {weight: 1}]->(:Malware {name: 'Poison Ivy', aliases: ['PIVY', 'Darkmoon'], big: 9007199254740993})",
    )
    await write('MATCH (m:Malware) SET m.family = true, m.score = 1.0')
    await write('MATCH (a:ThreatActor) DETACH DELETE a')
    const timeline = await server.request<Ok<{ session_id: string; roots: TreeNode[] }>>(
      `/v1/explorer/sessions/${session}/timeline`,
    )
    timeshots = chain(timeline.json.result.roots)
  })
  afterAll(async () => {
    await server.stop()
  })

  it('records one timeshot per committed write, as a lineage', () => {
    expect(timeshots.map((b) => b.kind)).toEqual(['timeshot', 'timeshot', 'timeshot', 'timeshot'])
    expect(timeshots[0]!.parent_id).toBeNull()
    for (let i = 1; i < timeshots.length; i++)
      expect(timeshots[i]!.parent_id).toBe(timeshots[i - 1]!.boundary_id)
    for (const b of timeshots) expect(b.transaction_id).toMatch(/^tx--/)
  })

  it('shows the graph now, and as it was at an earlier timeshot (a node deleted later is there)', async () => {
    const now = await graph('')
    expect(now.status).toBe(200)
    expect(now.json.result.boundary).toEqual({ kind: 'current' })
    expect(now.json.result.nodes.map((n) => n.labels[0])).toEqual(['Malware'])
    const malware = now.json.result.nodes[0]!
    expect(malware.properties).toEqual({
      aliases: { type: 'string_list', value: ['PIVY', 'Darkmoon'] },
      big: { type: 'integer', value: '9007199254740993' },
      family: { type: 'bool', value: true },
      name: { type: 'string', value: 'Poison Ivy' },
      score: { type: 'float', value: 1 },
    })
    expect(malware.version).toBe(2)

    const second = await graph(`?boundary_kind=timeshot&boundary_id=${timeshots[1]!.boundary_id}`)
    expect(second.json.result.nodes.map((n) => n.labels[0])).toEqual(['ThreatActor', 'Malware'])
    expect(second.json.result.relationships).toHaveLength(1)
    expect(second.json.result.relationships[0]).toMatchObject({
      relationship_type: 'Uses',
      source: second.json.result.nodes[0]!.id,
    })
    const pivy = second.json.result.nodes[1]!
    expect(Object.keys(pivy.properties)).toEqual(['aliases', 'big', 'name'])
    expect(pivy.version).toBe(1)
    const first = await graph(`?boundary_kind=timeshot&boundary_id=${timeshots[0]!.boundary_id}`)
    expect(first.json.result.nodes.map((n) => n.labels[0])).toEqual(['ThreatActor'])
    expect(first.json.result.nodes[0]!.properties.confidence).toEqual({ type: 'float', value: 0.9 })
  })

  it('is deterministic: the same request gives the same bytes, across a restart too', async () => {
    const path = `?boundary_kind=timeshot&boundary_id=${timeshots[2]!.boundary_id}&max_properties_per_record=2`
    const a = await graph(path)
    const b = await graph(path)
    expect(a.text).toBe(b.text)
    await server.stop()
    server = await startServer({ env })
    const c = await graph(path)
    expect(c.text).toBe(a.text)
    expect(c.json.result.metadata.omitted_properties).toBeGreaterThan(0)
  })

  it('returns relationships only when both ends are returned, and says what it omitted', async () => {
    const res = await graph(`?boundary_kind=timeshot&boundary_id=${timeshots[1]!.boundary_id}&max_nodes=1`)
    expect(res.json.result.nodes).toHaveLength(1)
    expect(res.json.result.relationships).toHaveLength(0)
    expect(res.json.result.metadata).toMatchObject({
      partial: true,
      returned_nodes: 1,
      omitted_nodes: 1,
      omitted_relationships: 1,
    })
  })

  it.each([
    ['max_nodes', 1, 50000],
    ['max_relationships', 1, 100000],
    ['max_properties_per_record', 1, 256],
    ['max_payload_bytes', 1024, 16777216],
    ['max_computation_units', 1, 1000000],
  ] as const)('%s is enforced at min-1, min, max, max+1', async (name, min, max) => {
    for (const value of [min, max])
      expect((await graph(`?${name}=${value}`)).status, `${name}=${value}`).toBe(200)
    for (const value of [min - 1, max + 1, 'x']) {
      const res = await server.request<ErrorBody>(`/v1/explorer/sessions/${session}/graph?${name}=${value}`)
      expect(res.status, `${name}=${value}`).toBe(400)
      expect(res.json.error.code).toBe('INVALID_VISUALIZATION_PROJECTION')
      expect(res.json.error.message).toContain(name)
    }
  })

  it('bounds payload bytes and computation units while building', async () => {
    const tiny = await graph('?max_computation_units=1')
    expect(tiny.json.result.metadata).toMatchObject({ computation_units: 1, partial: true })
    expect(tiny.json.result.nodes[0]!.properties).toEqual({})
    const bytes = await graph('?max_payload_bytes=1024')
    expect(Buffer.byteLength(JSON.stringify(bytes.json.result))).toBeLessThanOrEqual(1024)
  })

  it('answers boundary errors as the reference does', async () => {
    const cases: [string, number, string][] = [
      [`?boundary_kind=current&boundary_id=${timeshots[0]!.boundary_id}`, 400, 'INVALID_TEMPORAL_BOUNDARY'],
      ['?boundary_kind=timeshot', 400, 'INVALID_TEMPORAL_BOUNDARY'],
      ['?boundary_kind=yesterday', 400, 'INVALID_TEMPORAL_BOUNDARY'],
      ['?boundary_kind=timeshot&boundary_id=timeshot--nope', 404, 'TEMPORAL_BOUNDARY_NOT_FOUND'],
      [
        `?boundary_kind=snapshot&boundary_id=${timeshots[0]!.boundary_id}`,
        404,
        'TEMPORAL_BOUNDARY_NOT_FOUND',
      ],
    ]
    for (const [query, status, code] of cases) {
      const res = await server.request<ErrorBody>(`/v1/explorer/sessions/${session}/graph${query}`)
      expect(res.status, query).toBe(status)
      expect(res.json.error.code, query).toBe(code)
    }
    const other = (
      await server.request<Ok<{ session_id: string }>>('/v1/sessions/start', {
        body: { workspace_id: 'w2', actor_id: 'x' },
      })
    ).json.result.session_id
    const foreign = await server.request<ErrorBody>(
      `/v1/explorer/sessions/${other}/graph?boundary_kind=timeshot&boundary_id=${timeshots[0]!.boundary_id}`,
    )
    expect(foreign.json.error.code).toBe('TEMPORAL_BOUNDARY_NOT_FOUND')
    expect((await server.request<ErrorBody>('/v1/explorer/sessions/nope/graph')).json.error.code).toBe(
      'SESSION_NOT_FOUND',
    )
    expect((await server.request<ErrorBody>('/v1/explorer/sessions/nope/timeline')).status).toBe(404)
  })
})
