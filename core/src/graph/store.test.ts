import { describe, expect, it } from 'vitest'
import { DEFAULT_WORKSPACE_ID, GraphCatalog } from './catalog.js'
import type { CommitRecord } from './commit.js'
import { decodeValue, encodeValue } from './commit.js'
import { GraphStore } from './store.js'
import type { PropertyValue } from './types.js'

function seed(store: GraphStore): { a: number; b: number; r: number } {
  const tx = store.begin()
  const person = store.names.id('Person')
  const name = store.names.id('name')
  const a = tx.createNode([person], new Map([[name, 'Ann']]))
  const b = tx.createNode([person], new Map([[name, 'Bob']]))
  const r = tx.createRelationship(store.names.id('KNOWS'), a, b, new Map([[store.names.id('since'), 2020n]]))
  store.publish(tx.prepare(), 1)
  return { a, b, r }
}

describe('GraphStore and Transaction', () => {
  it('indexes a property pair from its first lookup on, and writes keep it equal to a scan', () => {
    const store = new GraphStore()
    const [a, b, k] = ['A', 'B', 'k'].map((n) => store.names.id(n)) as [number, number, number]
    let s = 11
    const rand = (n: number) => {
      s = (Math.imul(s, 1103515245) + 12345) >>> 0
      return s % n
    }
    const scan = (label: number, value: PropertyValue) =>
      [...store.allNodeIds()].filter((id) => {
        const node = store.node(id)
        return node?.labels.includes(label) && node.props.get(k) === value
      })
    const ids: number[] = []
    for (let round = 0; round < 40; round++) {
      const tx = store.begin()
      for (let i = 0; i < 10; i++) {
        const roll = rand(6)
        const live = ids.filter((id) => tx.node(id) !== undefined)
        const target = live[rand(Math.max(1, live.length))]
        if (roll === 0 || target === undefined)
          ids.push(tx.createNode(rand(2) === 0 ? [a] : [a, b], new Map([[k, BigInt(rand(4))]])))
        else if (roll === 1) tx.setNodeProperty(target, k, BigInt(rand(4)))
        else if (roll === 2) tx.setNodeProperty(target, k, undefined)
        else if (roll === 3) tx.addLabel(target, b)
        else if (roll === 4) tx.removeLabel(target, rand(2) === 0 ? a : b)
        else tx.deleteNode(target)
      }
      store.publish(tx.prepare(), round + 1)
      // Pair (A, k) is sought from round 10 on, (B, k) only at the end: both must agree with a scan.
      if (round >= 10)
        for (let v = 0n; v < 4n; v++)
          expect([...store.propertyNodeIds(a, k, v)].sort()).toEqual(scan(a, v).sort())
    }
    for (const label of [a, b])
      for (let v = 0n; v < 4n; v++)
        expect([...store.propertyNodeIds(label, k, v)].sort()).toEqual(scan(label, v).sort())
  })

  it('restores relationships with their adjacency added at finishRestore, after existing edges, in order', () => {
    const store = new GraphStore()
    const { a, b, r } = seed(store)
    const type = store.names.id('LINKS')
    const hub = 2
    store.applyCommit({ ops: [{ op: 'createNode', id: hub, labels: [], props: {} }] })
    expect(store.node(hub)?.out).toEqual([])
    const restored = [10, 11, 12, 13]
    store.restoreRelationship(10, type, a, b, undefined)
    store.restoreRelationship(11, type, hub, a, undefined)
    store.restoreRelationship(12, type, a, a, new Map([[store.names.id('w'), 1.5]]))
    store.restoreRelationship(13, type, b, hub, undefined)
    expect(store.node(a)?.out).toEqual([r]) // not yet
    store.finishRestore()
    expect(store.node(a)?.out).toEqual([r, 10, 12])
    expect(store.node(a)?.in).toEqual([11, 12])
    expect(store.node(b)?.in).toEqual([r, 10])
    expect(store.node(hub)?.out).toEqual([11])
    expect(store.node(hub)?.in).toEqual([13])
    expect(store.relCount()).toBe(1 + restored.length)
    expect(store.relProperty(12, store.names.lookup('w'))).toBe(1.5)
    // Edges after the restore still append, and an edgeless node's shared empty list is never written.
    store.applyCommit({
      ops: [{ op: 'createRelationship', id: 14, type: 'LINKS', start: hub, end: hub, props: {} }],
    })
    expect(store.node(hub)?.out).toEqual([11, 14])
    store.applyCommit({ ops: [{ op: 'createNode', id: 3, labels: [], props: {} }] })
    store.applyCommit({ ops: [{ op: 'createNode', id: 4, labels: [], props: {} }] })
    store.applyCommit({
      ops: [{ op: 'createRelationship', id: 15, type: 'LINKS', start: 3, end: 3, props: {} }],
    })
    expect(store.node(3)?.out).toEqual([15])
    expect(store.node(4)?.out).toEqual([])
    expect(store.node(4)?.in).toEqual([])
  })

  it('restores a hub of 40,000 relationships (grown by push past the preallocation bound) in order', () => {
    const store = new GraphStore()
    store.applyCommit({
      ops: [
        { op: 'createNode', id: 0, labels: [], props: {} },
        { op: 'createNode', id: 1, labels: [], props: {} },
      ],
    })
    const type = store.names.id('T')
    for (let id = 0; id < 40_000; id++) store.restoreRelationship(id, type, 0, id % 2, undefined)
    store.finishRestore()
    const out = store.node(0)?.out ?? []
    expect(out).toHaveLength(40_000)
    expect(out.every((id, i) => id === i)).toBe(true)
    expect(store.node(1)?.in).toHaveLength(20_000)
    expect(store.node(0)?.in.slice(0, 3)).toEqual([0, 2, 4])
  })

  it('publishes a transaction and maintains label, property and adjacency indexes', () => {
    const store = new GraphStore()
    const { a, b, r } = seed(store)
    const person = store.names.lookup('Person')
    const name = store.names.lookup('name')
    expect(store.nodeCount()).toBe(2)
    expect(store.relCount()).toBe(1)
    expect([...store.labelNodeIds(person)]).toEqual([a, b])
    expect([...store.propertyNodeIds(person, name, 'Bob')]).toEqual([b])
    expect(store.node(a)?.out).toEqual([r])
    expect(store.node(b)?.in).toEqual([r])
    expect(store.relStart(r)).toBe(a)
    expect(store.relEnd(r)).toBe(b)
    expect(store.sequence).toBe(1)
  })

  it('stores relationship properties by key: set, remove, delete, restore, and the overlay reads through', () => {
    const store = new GraphStore()
    const { a, b, r } = seed(store)
    const since = store.names.lookup('since')
    const weight = store.names.id('weight')
    const type = store.names.lookup('KNOWS')
    expect(store.relProps(r)).toEqual(new Map([[since, 2020n]]))
    expect(store.relProperty(r, since)).toBe(2020n)
    let tx = store.begin()
    const bare = tx.createRelationship(type, b, a, new Map())
    tx.setRelationshipProperty(r, weight, 0.5)
    tx.setRelationshipProperty(r, since, undefined)
    expect(tx.relProperty(r, weight)).toBe(0.5)
    expect(tx.relProperty(r, since)).toBeUndefined()
    expect(store.relProperty(r, weight)).toBeUndefined()
    store.publish(tx.prepare(), 2)
    expect(store.relProps(bare)).toBeUndefined()
    expect(store.relProps(r)).toEqual(new Map([[weight, 0.5]]))
    expect(tx.relProperty(bare, weight)).toBeUndefined()
    tx = store.begin()
    tx.setRelationshipProperty(r, weight, undefined)
    store.publish(tx.prepare(), 3)
    expect(store.relProps(r)).toBeUndefined()
    tx = store.begin()
    tx.setRelationshipProperty(bare, since, 1999n)
    tx.deleteRelationship(bare)
    store.publish(tx.prepare(), 4)
    expect(store.relProperty(bare, since)).toBeUndefined()
    store.restoreRelationship(bare + 1, type, a, b, new Map([[since, 1n]]))
    expect(store.relProps(bare + 1)).toEqual(new Map([[since, 1n]]))
    // A deleted relationship's id is not reused, and its properties are gone with it.
    expect([...store.allRelIds()].map((id) => [id, store.relProps(id)])).toEqual([
      [r, undefined],
      [bare + 1, new Map([[since, 1n]])],
    ])
  })

  it('indexes overlay records on the first read and keeps that index current after it', () => {
    const store = new GraphStore()
    const { a, b } = seed(store)
    const person = store.names.lookup('Person')
    const name = store.names.lookup('name')
    const tag = store.names.id('Tag')
    const tx = store.begin()
    // Writes before any read: created, relabelled, re-valued and deleted records.
    const c = tx.createNode([person, tag], new Map([[name, 'Cy']]))
    tx.setNodeProperty(a, name, 'Anna')
    tx.removeLabel(b, person)
    const gone = tx.createNode([tag], new Map())
    tx.deleteNode(gone)
    expect([...tx.labelNodeIds(person)].sort()).toEqual([a, c].sort())
    expect([...tx.labelNodeIds(tag)]).toEqual([c])
    expect([...tx.propertyNodeIds(person, name, 'Anna')]).toEqual([a])
    expect([...tx.propertyNodeIds(person, name, 'Ann')]).toEqual([])
    expect(tx.labelCount(tag)).toBe(1)
    // Writes after the first read go straight into the index.
    const d = tx.createNode([tag], new Map([[name, 'Di']]))
    tx.addLabel(b, person)
    tx.setNodeProperty(c, name, 'Cyd')
    tx.removeLabel(c, tag)
    expect([...tx.labelNodeIds(tag)]).toEqual([d])
    expect([...tx.labelNodeIds(person)].sort()).toEqual([a, b, c].sort())
    expect([...tx.propertyNodeIds(person, name, 'Cyd')]).toEqual([c])
    expect([...tx.propertyNodeIds(person, name, 'Cy')]).toEqual([])
    expect([...tx.propertyNodeIds(tag, name, 'Di')]).toEqual([d])
    // A pair first looked up late is built from every overlay record at that moment, then kept current.
    const age = store.names.id('age')
    const e = tx.createNode([person], new Map([[age, 40n]]))
    tx.setNodeProperty(a, age, 40n)
    expect([...tx.propertyNodeIds(person, age, 40n)].sort()).toEqual([a, e].sort())
    const f = tx.createNode([person], new Map([[age, 40n]]))
    tx.setNodeProperty(e, age, 41n)
    expect([...tx.propertyNodeIds(person, age, 40n)].sort()).toEqual([a, f].sort())
    expect(tx.firstPropertyNodeId(person, age, 41n)).toBe(e)
  })

  it('keeps uncommitted writes invisible to the published version', () => {
    const store = new GraphStore()
    const { a } = seed(store)
    const tx = store.begin()
    const name = store.names.id('name')
    tx.setNodeProperty(a, name, 'Anna')
    tx.createNode([], new Map())
    expect(tx.node(a)?.props.get(name)).toBe('Anna')
    expect(store.node(a)?.props.get(name)).toBe('Ann')
    expect(store.nodeCount()).toBe(2)
    expect(tx.nodeCount()).toBe(3)
    const person = store.names.lookup('Person')
    expect([...tx.propertyNodeIds(person, name, 'Anna')]).toEqual([a])
    expect([...store.propertyNodeIds(person, name, 'Anna')]).toEqual([])
  })

  it('index lookups treat integers and integral floats as equal', () => {
    const store = new GraphStore()
    const tx = store.begin()
    const label = store.names.id('L')
    const key = store.names.id('p')
    const id = tx.createNode([label], new Map([[key, 1n]]))
    store.publish(tx.prepare(), 1)
    expect([...store.propertyNodeIds(label, key, 1)]).toEqual([id])
    expect([...store.propertyNodeIds(label, key, 1n)]).toEqual([id])
  })

  it('refuses at prepare time to delete a node that still has relationships', () => {
    const store = new GraphStore()
    const { a } = seed(store)
    const tx = store.begin()
    tx.deleteNode(a)
    expect(() => tx.prepare()).toThrow(/DETACH/)
    expect(store.nodeCount()).toBe(2)
  })

  it("publishing adopts created nodes as their ops would build them, without sharing the caller's values", () => {
    const store = new GraphStore()
    const log: CommitRecord[] = []
    const tx = store.begin()
    const [a, b, k, tags] = ['A', 'B', 'k', 'tags'].map((n) => store.names.id(n)) as [
      number,
      number,
      number,
      number,
    ]
    const list = ['x', 'y']
    const props = new Map<number, PropertyValue>([
      [k, 1n],
      [tags, list],
    ])
    const n = tx.createNode([a, a], props)
    tx.setNodeProperty(n, k, 2n)
    tx.setNodeProperty(n, k, undefined)
    tx.setNodeProperty(n, k, 3.5)
    tx.addLabel(n, b)
    tx.removeLabel(n, a)
    tx.addLabel(n, a)
    const gone = tx.createNode([a], new Map())
    tx.deleteNode(gone)
    const commit = tx.prepare()
    log.push(JSON.parse(JSON.stringify(commit)) as CommitRecord)
    store.publish(commit, 1)
    list.push('z')
    props.set(k, 'changed')
    const replica = new GraphStore()
    replica.applyCommit(log[0] as CommitRecord, 1)
    const view = (s: GraphStore, id: number) => ({
      labels: s.node(id)?.labels.map((l) => s.names.name(l)),
      props: [...(s.node(id)?.props ?? [])].map(([key, v]) => [s.names.name(key), v]),
    })
    expect(view(store, n)).toEqual({
      labels: ['B', 'A'],
      props: [
        ['tags', ['x', 'y']],
        ['k', 3.5],
      ],
    })
    expect(view(replica, n)).toEqual(view(store, n))
    expect(store.node(gone)).toBeUndefined()
    expect([...store.propertyNodeIds(a, k, 3.5)]).toEqual([n])
    expect([...store.labelNodeIds(a)]).toEqual([n])
  })

  it('replays a JSON round-tripped redo log to an identical graph, ids and counters included', () => {
    const store = new GraphStore()
    const log: CommitRecord[] = []
    const publish = (commit: CommitRecord) => {
      log.push(JSON.parse(JSON.stringify(commit)) as CommitRecord)
      store.publish(commit, log.length)
    }
    const tx1 = store.begin()
    const person = store.names.id('Person')
    const a = tx1.createNode([person], new Map([[store.names.id('name'), 'Ann']]))
    const b = tx1.createNode([person], new Map())
    const r = tx1.createRelationship(store.names.id('KNOWS'), a, b, new Map())
    publish(tx1.prepare())
    const tx2 = store.begin()
    const score = store.names.id('score')
    tx2.setNodeProperty(a, score, 1.0)
    tx2.deleteRelationship(r)
    tx2.deleteNode(b)
    const c = tx2.createNode([store.names.id('City')], new Map([[score, [1n, 2n]]]))
    publish(tx2.prepare())

    const replica = new GraphStore()
    for (const [i, commit] of log.entries()) replica.applyCommit(commit, i + 1)
    expect(replica.sequence).toBe(2)
    expect(replica.nodeCount()).toBe(store.nodeCount())
    expect(replica.relCount()).toBe(0)
    expect(replica.nextNodeId).toBe(store.nextNodeId)
    expect(replica.nextRelId).toBe(store.nextRelId)
    const replicaScore = replica.node(a)?.props.get(replica.names.lookup('score'))
    expect(replicaScore).toBe(1.0)
    expect(typeof replicaScore).toBe('number')
    expect(replica.node(c)?.props.get(replica.names.lookup('score'))).toEqual([1n, 2n])
    // New ids continue after the replayed ones.
    expect(replica.begin().createNode([], new Map())).toBe(c + 1)
  })

  it('orders node deletions after relationship deletions in the redo record', () => {
    const store = new GraphStore()
    const { a, b, r } = seed(store)
    const tx = store.begin()
    tx.deleteNode(a)
    tx.deleteNode(b)
    tx.deleteRelationship(r)
    const commit = tx.prepare()
    expect(commit.ops.map((op) => op.op)).toEqual(['deleteRelationship', 'deleteNode', 'deleteNode'])
    store.publish(commit, 2)
    expect(store.nodeCount()).toBe(0)
  })

  it('encodes integers and floats distinctly', () => {
    expect(encodeValue(1n)).toEqual({ i: '1' })
    expect(encodeValue(1)).toEqual({ f: 1 })
    expect(decodeValue(JSON.parse(JSON.stringify(encodeValue(2n ** 62n))))).toBe(2n ** 62n)
    expect(decodeValue(JSON.parse(JSON.stringify(encodeValue(Number.NaN))))).toBeNaN()
  })

  it('serialises writers through the exclusive queue, even after a failure', async () => {
    const store = new GraphStore()
    const order: string[] = []
    const slow = store.exclusive(async () => {
      await new Promise((resolve) => setTimeout(resolve, 10))
      order.push('first')
      throw new Error('boom')
    })
    const fast = store.exclusive(async () => {
      order.push('second')
    })
    await expect(slow).rejects.toThrow('boom')
    await fast
    expect(order).toEqual(['first', 'second'])
  })
})

describe('GraphCatalog', () => {
  it('keeps one store per workspace', () => {
    const catalog = new GraphCatalog()
    expect(catalog.workspace()).toBe(catalog.workspace(DEFAULT_WORKSPACE_ID))
    expect(catalog.workspace('workspace--a')).not.toBe(catalog.workspace())
    expect(catalog.workspaceIds().sort()).toEqual([DEFAULT_WORKSPACE_ID, 'workspace--a'].sort())
  })
})
