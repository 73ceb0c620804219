import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { GraphStore } from '../graph/store.js'
import type { PropertyValue } from '../graph/types.js'
import { openEngine } from '../runtime/index.js'

/** Every node as [id, labels, [key, value][] in the node's own order]: types kept (bigint vs number). */
function dump(store: GraphStore) {
  return [...store.allNodeIds()].map((id) => {
    const node = store.node(id)!
    return [
      id,
      node.labels.map((l) => store.names.name(l)),
      [...node.props].map(([k, v]) => [store.names.name(k), v]),
    ]
  })
}

/** Every checkpoint file of the store at `dir`, as one text. */
const checkpointText = (dir: string) =>
  readdirSync(join(dir, 'checkpoints'))
    .map((f) => readFileSync(join(dir, 'checkpoints', f), 'utf8'))
    .join('\n')

describe('checkpoint node columns', () => {
  it('bring back every node with its labels, key order and value types', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'image-')), 'graph')
    const rows: [string[], [string, PropertyValue][]][] = [
      [
        ['A'],
        [
          ['k', 1n],
          ['s', 'x'],
        ],
      ],
      [
        ['A', 'B'],
        [
          ['s', 'y'],
          ['k', 2n ** 60n],
        ],
      ], // other key order; an int beyond 2^53
      [[], []],
      [
        ['B'],
        [
          ['k', 'now a string'],
          ['f', 1.5],
          ['nan', Number.NaN],
          ['inf', Number.NEGATIVE_INFINITY],
        ],
      ],
      [
        ['C'],
        [
          ['__proto__', 'own key'],
          ['list', [1n, 2n]],
          ['flags', [true, false]],
          ['b', true],
        ],
      ],
      [
        ['A'],
        [
          ['k', -3n],
          ['whole', 2.0],
        ],
      ],
    ]
    const engine = await openEngine({ storage: { mode: 'persistent', dir, requireFsync: false } })
    await engine.transact('ws', (tx, store) => {
      for (const [labels, props] of rows)
        tx.createNode(
          labels.map((l) => store.names.id(l)),
          new Map(props.map(([k, v]) => [store.names.id(k), v])),
        )
    })
    const before = await engine.readGraph('ws', dump)
    await engine.close()
    const image = checkpointText(dir)
    expect(image).toContain('"kind":"graph_nodes"')
    expect(image).not.toContain('"kind":"graph_batch"')
    const reopened = await openEngine({ storage: { mode: 'persistent', dir, requireFsync: false } })
    try {
      expect(await reopened.readGraph('ws', dump)).toEqual(before)
      const found = await reopened.read(
        'MATCH (n:A {k: $k}) RETURN n.s AS s',
        { k: 2n ** 60n },
        { workspaceId: 'ws' },
      )
      expect(found.data?.rows).toEqual([['y']])
    } finally {
      await reopened.close()
    }
  })
})

/** Every relationship as [id, type, start, end, [key, value][]]: types kept (bigint vs number). */
function dumpRels(store: GraphStore) {
  const out: unknown[] = []
  for (let id = 0; id < store.nextRelId; id++) {
    if (store.relType(id) < 0) continue
    const props = [...(store.relProps(id) ?? [])].map(([k, v]) => [store.names.name(k), v])
    out.push([id, store.names.name(store.relType(id)), store.relStart(id), store.relEnd(id), props])
  }
  return out
}

describe('checkpoint relationship property columns', () => {
  it('bring back every relationship with its values, types and gaps (older images: main-format-compat.test.ts)', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'image-rels-')), 'graph')
    const rels: [string, [string, PropertyValue][]][] = [
      ['R', []],
      ['R', [['w', 1.5]]],
      [
        'S',
        [
          ['0', 'index-like key'],
          ['w', 2n ** 60n],
        ],
      ], // a key JSON would put first in an object
      [
        'R',
        [
          ['__proto__', 'own key'],
          ['list', ['a', 'b']],
        ],
      ],
      [
        'S',
        [
          ['w', Number.NaN],
          ['flag', false],
        ],
      ],
    ]
    const engine = await openEngine({ storage: { mode: 'persistent', dir, requireFsync: false } })
    await engine.transact('ws', (tx, store) => {
      const a = tx.createNode([store.names.id('N')], new Map())
      const b = tx.createNode([store.names.id('N')], new Map())
      // Enough relationships for two batches, the later ones with no properties at all.
      for (let i = 0; i < 5000; i++) {
        const [type, props] = rels[i % rels.length] as (typeof rels)[number]
        tx.createRelationship(
          store.names.id(type),
          i % 2 ? a : b,
          i % 3 ? b : a,
          new Map(i < 4500 ? props.map(([k, v]) => [store.names.id(k), v]) : []),
        )
      }
    })
    const before = await engine.readGraph('ws', dumpRels)
    await engine.close()
    const image = checkpointText(dir)
    expect(image).toContain('"prop_columns":[[')
    const reopened = await openEngine({ storage: { mode: 'persistent', dir, requireFsync: false } })
    try {
      expect(await reopened.readGraph('ws', dumpRels)).toEqual(before)
    } finally {
      await reopened.close()
    }
  })
})

describe('a checkpoint written in slices', () => {
  it('lets reads and writes through while it is written, and what was written meanwhile replays over it', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'sliced-')), 'graph')
    // No image at close: the reopen must load the one written while the writes below went on.
    const storage = { mode: 'persistent', dir, requireFsync: false, checkpointOnClose: false } as const
    const engine = await openEngine({ storage })
    await engine.transact('ws', (tx, store) => {
      const label = [store.names.id('N')]
      const text = store.names.id('text')
      const i = store.names.id('i')
      // About 4 MB of image: several hundred slices.
      for (let n = 0; n < 40_000; n++)
        tx.createNode(
          label,
          new Map<number, PropertyValue>([
            [i, BigInt(n)],
            [text, `node number ${n} of the image, padded out to fill a few slices`],
          ]),
        )
    })
    const order: string[] = []
    const checkpoint = engine.checkpoint().then(() => order.push('checkpoint'))
    await new Promise((r) => setImmediate(r))
    const read = engine
      .read('MATCH (n:N) RETURN count(n) AS n', {}, { workspaceId: 'ws' })
      .then((r) => order.push(`read ${JSON.stringify(r.data?.rows)}`))
    // Writes ahead of the walk: the image keeps those nodes as they were, and the log replays the change.
    const write = async (query: string) => {
      const r = await engine.write(query, {}, { workspaceId: 'ws' })
      order.push(`write ${r.status}`)
    }
    const writes = (async () => {
      await write("CREATE (:After {v: 'during'})")
      await write('MATCH (n:N {i: 39990}) DELETE n')
      await write("MATCH (n:N {i: 39991}) SET n.text = 'changed'")
    })()
    await Promise.all([checkpoint, read, writes])
    expect(order).toEqual(['read [[40000]]', ...Array(3).fill('write Success'), 'checkpoint'])
    await engine.close()
    const reopened = await openEngine({ storage })
    try {
      expect(reopened.recoveryFacts().replayed_transactions).toBe(3)
      const after = await reopened.read('MATCH (a:After) RETURN a.v AS v', {}, { workspaceId: 'ws' })
      expect(after.data?.rows).toEqual([['during']])
      const count = await reopened.read('MATCH (n:N) RETURN count(n) AS n', {}, { workspaceId: 'ws' })
      expect(count.data?.rows).toEqual([[39999]])
      const changed = await reopened.read('MATCH (n:N {i: 39991}) RETURN n.text', {}, { workspaceId: 'ws' })
      expect(changed.data?.rows).toEqual([['changed']])
    } finally {
      await reopened.close()
    }
  }, 30_000) // 40,000 nodes written and reopened: real work, slow on a shared machine
})
