import { describe, expect, it } from 'vitest'
import { runsJson, type WalRun, walOps, walRuns } from '../kernel/wal-graph-body.js'
import {
  type CommitOp,
  type CreateRelationshipOp,
  commitOpsJson,
  createdRelProperty,
  valueJson,
} from './commit.js'
import { GraphStore } from './store.js'
import type { PropertyValue } from './types.js'

// Values whose JSON has an edge: tagged integers and floats, non-finite floats, -0, exponents, escapes.
const VALUES: PropertyValue[] = [
  0n,
  -12345678901234567890n,
  1.5,
  -0,
  1e21,
  5e-324,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  true,
  false,
  '',
  'quote " backslash \\ newline \n tab \t',
  'unicode é ☃ 𝄞 and a lone \ud800 surrogate',
  [],
  [1n, 2.5, 'x', false, Number.NaN],
]

describe('commit ops written as JSON directly', () => {
  it('each value is written as JSON.stringify writes its encoding', () => {
    const store = new GraphStore()
    for (const value of VALUES) {
      const tx = store.begin()
      tx.createNode([], new Map([[store.names.id('v'), value]]))
      const [op] = tx.prepare().ops
      expect(JSON.parse(valueJson(value))).toEqual(
        (JSON.parse(JSON.stringify(op)) as { props: { v: unknown } }).props.v,
      )
    }
  })

  it('a commit of every op kind gives the text JSON.stringify gives', () => {
    const store = new GraphStore()
    const n = (name: string) => store.names.id(name)
    const setup = store.begin()
    const kept = setup.createNode([n('Kept')], new Map())
    store.publish(setup.prepare(), 1)
    const tx = store.begin()
    const props = new Map<number, PropertyValue>(VALUES.map((value, i) => [n(`p${i}`), value]))
    props.set(n('__proto__'), 'own key')
    props.set(n('label "quoted"'), 'x')
    const a = tx.createNode([n('A'), n('B "quoted"')], props)
    const b = tx.createNode([], new Map())
    const r = tx.createRelationship(n('REL'), a, b, new Map([[n('w'), 2n]]))
    tx.setNodeProperty(kept, n('k'), [1n, 'two'])
    tx.setRelationshipProperty(r, n('w'), 3.25)
    tx.addLabel(kept, n('C'))
    const ops = tx.prepare().ops
    expect(ops.map((op) => op.op)).toContain('createNode')
    expect(commitOpsJson(ops)).toBe(JSON.stringify(ops))
  })
})

describe('created relationships publish their typed values and log the same', () => {
  it('a store replaying the logged ops (plain or as columns) holds what publishing gave', () => {
    const store = new GraphStore()
    const n = (name: string) => store.names.id(name)
    const tx = store.begin()
    const a = tx.createNode([], new Map())
    const b = tx.createNode([], new Map())
    store.publish(tx.prepare(), 1)
    const write = store.begin()
    const rels = VALUES.flatMap((value, i) => [
      write.createRelationship(n('R'), a, b, new Map([[n('v'), value]])),
      write.createRelationship(n(`S${i % 2}`), b, a, new Map([[n(`k${i % 3}`), value]])),
    ])
    // Changed after its create in the same commit: replay of the create then the set ends the same.
    write.setRelationshipProperty(rels[0] as number, n('v'), 'later')
    const ops = write.prepare().ops
    const columns = walRuns(ops)
    expect(columns?.some((run) => 'rels' in run)).toBe(true)
    store.publish({ ops }, 2)
    const logged = [
      JSON.parse(JSON.stringify(ops)) as CommitOp[],
      walOps({ workspace: 'w', runs: JSON.parse(runsJson(columns ?? [])) as WalRun[] }),
    ]
    for (const replayOps of logged) {
      const replay = new GraphStore()
      const setup = replay.begin()
      setup.createNode([], new Map())
      setup.createNode([], new Map())
      replay.publish(setup.prepare(), 1)
      replay.applyCommit({ ops: replayOps }, 2)
      for (const id of rels) {
        // JSON writes -0 as 0 (the log always has): compared as equal here.
        const props = (s: GraphStore) =>
          [...(s.relProps(id) ?? new Map())].map(([key, value]) => [
            s.names.name(key),
            value === 0 ? 0 : value,
          ])
        expect(props(replay), `relationship ${id}`).toEqual(props(store))
        expect(replay.relType(id)).toBe(store.relType(id))
      }
    }
    expect(store.relProps(rels[0] as number)?.get(n('v'))).toBe('later')
  })
})

describe('createdRelProperty', () => {
  it('reads one property of a created relationship, encoded, whether the op is typed or plain', () => {
    const store = new GraphStore()
    const tx = store.begin()
    const a = tx.createNode([store.names.id('N')], new Map())
    const b = tx.createNode([store.names.id('N')], new Map())
    const props = new Map<number, PropertyValue>([
      [store.names.id('weight'), 7n],
      [store.names.id('context'), 'seen in a report'],
    ])
    tx.createRelationship(store.names.id('R'), a, b, props)
    const op = tx.prepare().ops.find((o) => o.op === 'createRelationship') as CreateRelationshipOp
    expect(createdRelProperty(op, 'weight')).toEqual({ i: '7' })
    expect(createdRelProperty(op, 'context')).toBe('seen in a report')
    expect(createdRelProperty(op, 'absent')).toBeUndefined()
    expect(createdRelProperty(op, 'never-interned-anywhere')).toBeUndefined()
    // The same answers from the op's plain (decoded from the log) form.
    const plain = JSON.parse(JSON.stringify(op)) as CreateRelationshipOp
    expect(createdRelProperty(plain, 'weight')).toEqual({ i: '7' })
    expect(createdRelProperty(plain, 'context')).toBe('seen in a report')
    expect(createdRelProperty(plain, 'absent')).toBeUndefined()
  })
})
