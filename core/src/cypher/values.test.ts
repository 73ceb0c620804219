import { describe, expect, it } from 'vitest'
import { GraphCatalog } from '../graph/catalog.js'
import { CypherEngine } from './engine.js'
import { compare, equals, NodeValue, orderCompare, valueKey } from './values.js'

const engine = () => new CypherEngine(new GraphCatalog())
async function value(expr: string, params?: Record<string, unknown>): Promise<unknown> {
  const outcome = await engine().execute({
    query: `RETURN ${expr} AS v`,
    mode: 'read',
    ...(params ? { params } : {}),
  })
  if (outcome.result.status !== 'Success') throw new Error(JSON.stringify(outcome.result.validation_errors))
  return outcome.raw?.rows[0]?.[0]
}
async function errorCode(expr: string): Promise<string | undefined> {
  const result = await engine().run({ query: `RETURN ${expr} AS v`, mode: 'read' })
  return result.validation_errors[0]?.code
}

describe('integer and float arithmetic', () => {
  it('keeps integers and floats distinct', async () => {
    expect(await value('7 / 2')).toBe(3n)
    expect(await value('7.0 / 2')).toBe(3.5)
    expect(await value('-7 / 2')).toBe(-3n)
    expect(await value('7 % 3')).toBe(1n)
    expect(await value('-7 % 3')).toBe(-1n)
    expect(await value('2 ^ 3')).toBe(8)
    expect(await value('1 + 1.5')).toBe(2.5)
    expect(await value('toInteger(3.9)')).toBe(3n)
  })

  it('keeps integers beyond 2^53 exact and reports overflow', async () => {
    expect(await value('9007199254740993 + 1')).toBe(9007199254740994n)
    expect(await value('9223372036854775807')).toBe(2n ** 63n - 1n)
    expect(await errorCode('9223372036854775807 + 1')).toBe('INTEGER_OVERFLOW')
    expect(await errorCode('1 / 0')).toBe('DIVISION_BY_ZERO')
    expect(await value('1.0 / 0')).toBe(Number.POSITIVE_INFINITY)
  })

  it('binds JSON numbers by their shape', async () => {
    expect(await value('$i', { i: 5 })).toBe(5n)
    expect(await value('$f', { f: 5.5 })).toBe(5.5)
    expect(await value('$b', { b: 2n ** 60n })).toBe(2n ** 60n)
  })

  it('concatenates strings and lists', async () => {
    expect(await value("'a' + 1")).toBe('a1')
    expect(await value("'a' + 1.0")).toBe('a1.0')
    expect(await value('[1] + [2, 3] + 4')).toEqual([1n, 2n, 3n, 4n])
  })
})

describe('three-valued logic', () => {
  it('follows Kleene logic for AND, OR, XOR and NOT', async () => {
    expect(await value('null AND false')).toBe(false)
    expect(await value('null AND true')).toBe(null)
    expect(await value('null OR true')).toBe(true)
    expect(await value('null OR false')).toBe(null)
    expect(await value('null XOR true')).toBe(null)
    expect(await value('NOT null')).toBe(null)
  })

  it('propagates null through comparison, IN and arithmetic', async () => {
    expect(await value('null = null')).toBe(null)
    expect(await value('1 + null')).toBe(null)
    expect(await value('2 IN [1, null]')).toBe(null)
    expect(await value('1 IN [1, null]')).toBe(true)
    expect(await value('[1, null] = [1, null]')).toBe(null)
    expect(await value("1 < 'a'")).toBe(null)
    expect(await value('null IS NULL')).toBe(true)
  })

  it('rejects non-boolean operands of boolean operators', async () => {
    expect(await errorCode('1 AND true')).toBe('INVALID_ARGUMENT_TYPE')
  })
})

describe('comparison, equality and ordering', () => {
  it('compares numbers across integer and float', () => {
    expect(equals(1n, 1)).toBe(true)
    expect(equals(1n, 1.5)).toBe(false)
    expect(equals(Number.NaN, Number.NaN)).toBe(false)
    expect(compare(1n, 2.5)).toBe(-1)
    expect(compare('a', 1n)).toBe(null)
  })

  it('orders across types as openCypher orderability does', () => {
    const values = [null, 1n, 'a', true, [1n], new Map(), new NodeValue(1), Number.NaN, 0.5]
    const sorted = values.slice().sort(orderCompare)
    expect(sorted).toEqual([new Map(), new NodeValue(1), [1n], 'a', true, 0.5, 1n, Number.NaN, null])
  })

  it('treats 1 and 1.0 as equivalent for DISTINCT and grouping', async () => {
    expect(valueKey(1n)).toBe(valueKey(1))
    expect(valueKey(null)).toBe(valueKey(null))
    expect(valueKey(Number.NaN)).toBe(valueKey(Number.NaN))
    const outcome = await engine().execute({
      query: 'UNWIND [1, 1.0, null, null, 2] AS x RETURN DISTINCT x',
      mode: 'read',
    })
    expect(outcome.raw?.rows.length).toBe(3)
  })
})
