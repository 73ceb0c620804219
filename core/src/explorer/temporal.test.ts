import { describe, expect, it } from 'vitest'
import { openEngine } from '../runtime/index.js'

describe('record history and the explorer (embedded)', () => {
  it('reads the graph as of a snapshot and a timeshot, without copies of unchanged data', async () => {
    const engine = await openEngine()
    const { session_id } = await engine.sessions.start({ workspace_id: 'w', actor_id: 'a' })
    const opts = { sessionId: session_id, workspaceId: 'w' }
    await engine.write('CREATE (:A {v: 1}), (:B {v: 1})', {}, opts)
    const snap = await engine.explorer.snapshot(session_id, 'baseline')
    await engine.write('MATCH (a:A) SET a.v = 2 REMOVE a:A SET a:C', {}, opts)
    await engine.write('MATCH (b:B) DELETE b', {}, opts)

    const atSnapshot = engine.explorer.graph(session_id, {
      boundary_kind: 'snapshot',
      boundary_id: snap.boundary_id,
    })
    expect(atSnapshot.nodes.map((n) => [n.labels, n.properties.v])).toEqual([
      [['A'], { type: 'integer', value: 1 }],
      [['B'], { type: 'integer', value: 1 }],
    ])
    const now = engine.explorer.graph(session_id)
    expect(now.nodes.map((n) => [n.labels, n.properties.v, n.version])).toEqual([
      [['C'], { type: 'integer', value: 2 }, 2],
    ])

    const tree = engine.explorer.timeline(session_id).roots
    expect(tree[0]!.boundary.kind).toBe('timeshot')
    expect(tree[0]!.children[0]!.boundary).toMatchObject({ kind: 'snapshot', label: 'baseline' })
    await engine.close()
  })

  it('drops the oldest versions past its bound and refuses boundaries below the floor', async () => {
    const engine = await openEngine({ historyMaxVersions: 2 })
    const { session_id } = await engine.sessions.start({ workspace_id: 'w', actor_id: 'a' })
    const opts = { sessionId: session_id, workspaceId: 'w' }
    await engine.write('CREATE (:N {v: 0})', {}, opts)
    for (let v = 1; v <= 4; v++) await engine.write('MATCH (n:N) SET n.v = $v', { v }, opts)
    const shots = engine.explorer.timeline(session_id).roots
    const first = shots[0]!.boundary.boundary_id
    expect(() =>
      engine.explorer.graph(session_id, { boundary_kind: 'timeshot', boundary_id: first }),
    ).toThrow(/retained record history/)
    let node = shots[0]!
    while (node.children.length > 0) node = node.children[0]!
    expect(
      engine.explorer.graph(session_id, { boundary_kind: 'timeshot', boundary_id: node.boundary.boundary_id })
        .nodes[0]!.properties.v,
    ).toEqual({
      type: 'integer',
      value: 4,
    })
    await engine.close()
  })
})
