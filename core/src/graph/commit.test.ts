import { describe, expect, it } from 'vitest'
import { commitOpsJson, valueJson } from './commit.js'
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
