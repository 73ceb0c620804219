import { describe, expect, it } from 'vitest'
import { planQuery } from './planner.js'

const explain = (text: string): string[] => {
  const { plan, errors } = planQuery(text, {
    maxExpressionDepth: 256,
    maxVariableLengthHops: 15,
    collectErrors: false,
  })
  if (plan === undefined) throw errors[0]
  return plan.explain
}

describe('planner', () => {
  it('seeks the property index for an inline property map', () => {
    expect(explain('MATCH (n:L {p: $v}) RETURN n')[0]).toBe('NodeIndexSeek(n:L.p)')
  })

  it('seeks the property index for a WHERE equality, either side', () => {
    expect(explain('MATCH (n:L) WHERE n.p = 1 RETURN n')[0]).toBe('NodeIndexSeek(n:L.p)')
    expect(explain('MATCH (n:L) WHERE 1 = n.p AND n.q > 2 RETURN n')[0]).toBe('NodeIndexSeek(n:L.p)')
  })

  it('does not seek on values that depend on the node itself', () => {
    expect(explain('MATCH (n:L) WHERE n.p = n.q RETURN n')[0]).toBe('NodeByLabelScan(n:L)')
  })

  it('starts from the most selective node and expands along typed adjacency', () => {
    expect(explain('MATCH (a)-[:KNOWS]->(b:Person {name: "x"}) RETURN a')).toEqual([
      'NodeIndexSeek(b:Person.name)',
      'Expand(in:KNOWS)',
    ])
    expect(explain('MATCH (a:A) MATCH (a)-[:R*1..2]->(b) RETURN b')).toEqual([
      'NodeByLabelScan(a:A)',
      'Argument(a)',
      'VarLengthExpand(out *1..2)',
    ])
    expect(explain('MATCH (a) RETURN a')).toEqual(['AllNodesScan(a)'])
  })

  it('pushes filters down to the step that binds their variables', () => {
    expect(explain('MATCH (a:A)-[:R]->(b) WHERE a.x > 1 AND b.y = 2 RETURN b')).toEqual([
      'NodeByLabelScan(a:A)',
      'Filter',
      'Expand(out:R)',
      'Filter',
    ])
  })
})
