import { describe, expect, it } from 'vitest'
import type { CommitOp, EncodedValue } from '../graph/commit.js'
import { GraphStore } from '../graph/store.js'
import type { PropertyValue } from '../graph/types.js'
import { graphWalBody } from './recovery.js'
import { MIN_COLUMN_RUN, walOps } from './wal-graph-body.js'

/** What the log gives back: the body through JSON, as written and read. */
const logged = (ops: CommitOp[]) => {
  const body = JSON.parse(graphWalBody('ws', ops, []).text)
  return { body, ops: walOps(body) }
}
const plain = (ops: CommitOp[]) => JSON.parse(JSON.stringify(ops))

const node = (id: number, props: Record<string, EncodedValue>, labels = ['A', 'B']): CommitOp => ({
  op: 'createNode',
  id,
  labels,
  props,
})
const rel = (id: number, props: Record<string, EncodedValue>, type = 'USES'): CommitOp => ({
  op: 'createRelationship',
  id,
  type,
  start: id % 7,
  end: (id * 3) % 11,
  props,
})

describe('graph WAL body', () => {
  it('logs a small commit as its ops, exactly as before', () => {
    const ops = Array.from({ length: MIN_COLUMN_RUN - 1 }, (_, i) => node(i, { name: `n${i}` }))
    const { body } = logged(ops)
    expect(body).toEqual({ workspace: 'ws', ops: plain(ops) })
  })

  it('gives back the same ops from columnar runs: key order, absent keys, tagged values, mixed kinds', () => {
    const ops: CommitOp[] = [{ op: 'setNodeProperty', id: 1, key: 'x', value: 'y' }]
    for (let i = 0; i < 40; i++)
      ops.push(
        node(
          100 + i,
          {
            id: `n-${i}`,
            raw: JSON.stringify({ id: `n-${i}`, name: 'Ünïcode "q"' }),
            rev: { i: '1' },
            ...(i % 3 === 0 ? { name: `name ${i}` } : {}),
            ...(i % 5 === 0 ? { score: { f: i === 0 ? 'NaN' : 1.5 }, flags: [true, false] } : {}),
            ...(i === 7 ? JSON.parse('{"__proto__":"own"}') : {}),
          },
          i % 4 === 0 ? ['A'] : ['A', 'B'],
        ),
      )
    // Not consecutive ids, two types, a record with its keys in another order (starts a new run).
    for (let i = 0; i < 40; i++) {
      const props: Record<string, EncodedValue> =
        i === 20 ? { rev: { i: '2' }, id: `r-${i}` } : { id: `r-${i}`, rev: { i: '1' }, kind: 'uses' }
      ops.push(rel(1000 + i * 2, props, i % 2 === 0 ? 'USES' : 'TARGETS'))
    }
    ops.push({ op: 'deleteNode', id: 5 })
    const { body, ops: back } = logged(ops)
    expect(body.ops).toBeUndefined()
    expect(body.runs.some((run: object) => 'nodes' in run)).toBe(true)
    expect(body.runs.some((run: object) => 'rels' in run)).toBe(true)
    expect(back).toEqual(plain(ops))
    // Key order survives (replay builds property maps in that order).
    expect(back.map((op) => ('props' in op ? Object.keys(op.props) : []))).toEqual(
      plain(ops).map((op: CommitOp) => ('props' in op ? Object.keys(op.props) : [])),
    )
    expect(Object.hasOwn((back[8] as { props: object }).props, '__proto__')).toBe(true)
  })

  it('is smaller than the ops for a bulk create', () => {
    const ops = Array.from({ length: 500 }, (_, i) =>
      rel(i, { stix_id: `relationship--${i}`, stix_type: 'relationship', ref_revision: { i: '1' } }),
    )
    const columns = graphWalBody('ws', ops, []).text.length
    expect(columns).toBeLessThan(JSON.stringify({ workspace: 'ws', ops }).length / 2)
  })

  it('reads the nodes a transaction created (no encoded copy) the same as their ops', () => {
    const store = new GraphStore()
    const tx = store.begin()
    const label = tx.names.id('Thing')
    for (let i = 0; i < 30; i++)
      tx.createNode(
        [label],
        new Map<number, PropertyValue>([
          [tx.names.id('id'), `t-${i}`],
          [tx.names.id('rev'), BigInt(i)],
        ]),
      )
    const ops = tx.prepare().ops
    expect(logged(ops).ops).toEqual(plain(ops))
  })
})
