import { describe, expect, it } from 'vitest'
import { testEngine } from '../test-support.js'

// A FOREACH body whose stages go row by row is built once per run and run for every item (subquery.ts).

describe('a FOREACH body run for every item', () => {
  it('runs each item once, nested and under a subquery, each item seeing the ones before', async () => {
    const { rows } = testEngine()
    await rows('UNWIND [1, 2] AS x FOREACH (i IN range(1, 3) | CREATE (:F {x: x, i: i}))')
    expect(await rows('MATCH (f:F) RETURN count(f), sum(f.i)')).toEqual([[6, 12]])
    await rows('FOREACH (a IN [1, 2] | FOREACH (b IN [1, 2, 3] | CREATE (:G {v: a * 10 + b})))')
    expect(await rows('MATCH (g:G) RETURN collect(g.v) AS v')).toEqual([[[11, 12, 13, 21, 22, 23]]])
    // MERGE per item sees the nodes earlier items made: one node per distinct value
    await rows('UNWIND [1, 2] AS x CALL (x) { FOREACH (k IN [1, 2, 1, x] | MERGE (:K {k: k})) }')
    expect(await rows('MATCH (k:K) RETURN count(k)')).toEqual([[2]])
  })

  it('fails on an item that is not a list, and the next run still works', async () => {
    const { engine, rows } = testEngine()
    const result = await engine.run({ query: 'FOREACH (i IN 5 | CREATE (:H))', mode: 'write' })
    expect(result.status).not.toBe('Success')
    await rows('FOREACH (i IN [1] | CREATE (:H))')
    expect(await rows('MATCH (h:H) RETURN count(h)')).toEqual([[1]])
  })
})
