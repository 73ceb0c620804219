import { describe, expect, it } from 'vitest'
import { GraphCatalog } from '../graph/catalog.js'
import { CypherEngine } from './engine.js'
import { roundTo } from './functions-more.js'

const engine = new CypherEngine(new GraphCatalog())
async function value(expr: string): Promise<unknown> {
  const result = await engine.run({ query: `RETURN ${expr} AS v`, mode: 'read' })
  if (result.status !== 'Success')
    throw new Error(`${result.validation_errors[0]?.code}: ${result.validation_errors[0]?.message}`)
  return result.data?.rows[0]?.[0]
}
async function code(expr: string): Promise<unknown> {
  return (await engine.run({ query: `RETURN ${expr} AS v`, mode: 'read' })).validation_errors[0]?.code
}

describe('toInteger of strings', () => {
  it('reads plain digits, signs, blanks, decimals and exponents, and gives null out of range', async () => {
    const cases: [string, bigint | null][] = [
      ['0', 0n],
      ['007', 7n],
      ['123456789012345', 123456789012345n],
      ['1234567890123456', 1234567890123456n],
      ['9223372036854775807', 9223372036854775807n],
      ['9223372036854775808', null],
      [' 7', 7n],
      ['-3', -3n],
      ['+4', 4n],
      ['1.9', 1n],
      ['1e3', 1000n],
      ['', null],
      ['x', null],
    ]
    const outcome = await engine.execute({
      query: 'UNWIND $cases AS c RETURN toInteger(c)',
      params: { cases: cases.map(([text]) => text) },
      mode: 'read',
    })
    expect(outcome.raw?.rows.map(([v]) => v)).toEqual(cases.map(([, v]) => v))
    const floats = await engine.execute({ query: "RETURN toFloat('12'), toFloat('007')", mode: 'read' })
    expect(floats.raw?.rows).toEqual([[12, 7]])
  })
})

describe('Neo4j 5 functions', () => {
  it('round(x, precision, mode) rounds the decimal form as Neo4j does', async () => {
    expect(await value('round(2.675, 2)')).toBe(2.68)
    expect(await value('round(-1.55, 1)')).toBe(-1.6)
    expect(await value("round(2.5, 0, 'HALF_EVEN')")).toBe(2)
    expect(await value("round(1.25, 1, 'HALF_DOWN')")).toBe(1.2)
    expect(await value("round(1.21, 1, 'CEILING')")).toBe(1.3)
    expect(await value("round(-1.21, 1, 'FLOOR')")).toBe(-1.3)
    expect(await value('round(1.23456, 3)')).toBe(1.235)
    expect(await value('round(-1.5)')).toBe(-1)
    expect(await value('round(-1.5, 0)')).toBe(-1)
    expect(await value('round(2.5, 0)')).toBe(3)
    expect(await value("round(-1.5, 0, 'HALF_UP')")).toBe(-2)
    expect(await code("round(1.0, 1, 'SIDEWAYS')")).toBe('INVALID_ARGUMENT_VALUE')
    expect(await code('round(1.0, -1)')).toBe('NEGATIVE_INTEGER_ARGUMENT')
    expect(roundTo(1e-7, 8, 'HALF_UP')).toBe(1e-7)
  })

  it("valueType gives Neo4j's normalised type: NOT NULL, list element unions in Neo4j's order", async () => {
    const rows = async (query: string) => (await engine.run({ query, mode: 'read' })).data?.rows
    expect(
      await rows(
        `RETURN valueType(1), valueType(null), valueType(date()), valueType({a: 1}), valueType([]),
          valueType([1, 'a']), valueType([1, null]), valueType([null]), valueType([[1], ['a']])`,
      ),
    ).toEqual([
      [
        'INTEGER NOT NULL',
        'NULL',
        'DATE NOT NULL',
        'MAP NOT NULL',
        'LIST<NOTHING> NOT NULL',
        'LIST<STRING NOT NULL | INTEGER NOT NULL> NOT NULL',
        'LIST<INTEGER> NOT NULL',
        'LIST<NULL> NOT NULL',
        'LIST<LIST<STRING NOT NULL> NOT NULL | LIST<INTEGER NOT NULL> NOT NULL> NOT NULL',
      ],
    ])
  })

  it('percentileDisc returns one of its values, keeping integers integers', async () => {
    const rows = async (query: string) => (await engine.run({ query, mode: 'read' })).data?.rows
    expect(
      await rows('UNWIND [13, 33, 44] AS x WITH percentileDisc(x, 0.5) AS p RETURN p, valueType(p) AS t'),
    ).toEqual([[33, 'INTEGER NOT NULL']])
    expect(await rows('UNWIND [1.5, 2.5, 3.5] AS x RETURN percentileDisc(x, 0.9) AS p')).toEqual([[3.5]])
    expect(await rows('UNWIND [10, 20] AS x RETURN percentileCont(x, 0.5) AS p')).toEqual([[15]])
  })

  it('normalize takes its normal form as a bare keyword too', async () => {
    expect(await value("normalize('\\u212B', NFKC)")).toBe('\u00C5')
    expect(await value("normalize('\\u00C5', NFD)")).toBe('A\u030A')
    expect(await value("normalize('\\u00C5', 'NFD')")).toBe('A\u030A')
    expect(await code("normalize('a', NFX)")).toBe('UNDEFINED_VARIABLE')
  })

  it('|| concatenates strings and lists', async () => {
    expect(await value("'neo' || '4j'")).toBe('neo4j')
    expect(await value("'a' || 'b' || 'c'")).toBe('abc')
    expect(await value('[1, 2] || [3]')).toEqual([1, 2, 3])
    expect(await value("'a' || null")).toBe(null)
    expect(await code("'a' || 1")).toBe('INVALID_ARGUMENT_TYPE')
    expect(await value("[x IN [1, 2] | toString(x) || '!']")).toEqual(['1!', '2!'])
  })

  it('haversin, isNaN and randomUUID', async () => {
    expect(await value('haversin(0.0)')).toBe(0)
    expect(await value('haversin(pi())')).toBeCloseTo(1, 12)
    expect(await value('haversin(pi() / 2)')).toBeCloseTo(0.5, 12)
    expect(await value('haversin(null)')).toBe(null)
    expect(await code("haversin('x')")).toBe('INVALID_ARGUMENT_TYPE')
    expect(await value('isNaN(0.0 / 0.0)')).toBe(true)
    expect(await value('isNaN(1)')).toBe(false)
    expect(await value('isNaN(2.5)')).toBe(false)
    expect(await value('isNaN(null)')).toBe(null)
    expect(await code("isNaN('NaN')")).toBe('INVALID_ARGUMENT_TYPE')
    const [a, b] = [await value('randomUUID()'), await value('randomUUID()')]
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(a).not.toBe(b)
  })

  it('list conversions, nullIf, trims with characters', async () => {
    expect(await value("toIntegerList(['1', 'x', 2.5, null])")).toEqual([1, null, 2, null])
    expect(await value("toFloatList(['1.5', true])")).toEqual([1.5, null])
    expect(await value("toBooleanList(['true', 0, 'x'])")).toEqual([true, false, null])
    expect(await value('toStringList([1, 2.5, true])')).toEqual(['1', '2.5', 'true'])
    expect(await value('nullIf(1, 1)')).toBe(null)
    expect(await value("nullIf('a', 'b')")).toBe('a')
    expect(await value("trim(BOTH 'x' FROM 'xxhixx')")).toBe('hi')
    expect(await value("trim(LEADING 'x' FROM 'xxhixx')")).toBe('hixx')
    expect(await value("trim(TRAILING FROM '  hi  ')")).toBe('  hi')
    expect(await value("btrim('xyhiyx', 'xy')")).toBe('hi')
    expect(await value("ltrim('xyhi', 'yx')")).toBe('hi')
    expect(await value("rtrim('hi  ')")).toBe('hi')
    expect(await code("trim(BOTH 'xy' FROM 'x')")).toBe('INVALID_ARGUMENT_VALUE')
  })

  it('vector similarity as Neo4j scales it', async () => {
    expect(await value('vector.similarity.cosine([1, 0], [1, 0])')).toBe(1)
    expect(await value('vector.similarity.cosine([1, 0], [-1, 0])')).toBe(0)
    expect(await value('vector.similarity.euclidean([0, 0], [1, 1])')).toBeCloseTo(1 / 3)
    expect(await code('vector.similarity.cosine([1], [1, 2])')).toBe('INVALID_ARGUMENT_VALUE')
  })
})

describe('APOC functions', () => {
  it('convert, coll, text, map', async () => {
    expect(await value("apoc.convert.toJson({a: 1, b: [1, 'x']})")).toBe('{"a":1,"b":[1,"x"]}')
    expect(await value('apoc.convert.fromJsonMap(\'{"a": 1, "b": [2.5]}\')')).toEqual({ a: 1, b: [2.5] })
    expect(await value("apoc.convert.fromJsonList('[1, 2]')")).toEqual([1, 2])
    expect(await code("apoc.convert.fromJsonMap('[1]')")).toBe('INVALID_ARGUMENT_VALUE')
    expect(await value('apoc.coll.sum([1, 2.5, null])')).toBe(3.5)
    expect(await value("apoc.coll.toSet([1, 1, 'a', 'a'])")).toEqual([1, 'a'])
    expect(await value('apoc.coll.flatten([[1], [2, [3]]])')).toEqual([1, 2, [3]])
    expect(await value('apoc.coll.flatten([[1], [2, [3]]], true)')).toEqual([1, 2, 3])
    expect(await value('apoc.coll.frequencies([1, 1, 2])')).toEqual([
      { item: 1, count: 2 },
      { item: 2, count: 1 },
    ])
    expect(await value("apoc.text.join(['a', null, 'b'], '-')")).toBe('a-b')
    expect(await value("apoc.text.distance('kitten', 'sitting')")).toBe(3)
    expect(await value("apoc.text.camelCase('hello big world')")).toBe('helloBigWorld')
    expect(await value("apoc.text.lpad('7', 3, '0')")).toBe('007')
    expect(await value("apoc.map.fromPairs([['a', 1], ['b', 2]])")).toEqual({ a: 1, b: 2 })
    expect(await value('apoc.map.merge({a: 1}, {a: 2, b: 3})')).toEqual({ a: 2, b: 3 })
    expect(await value("apoc.map.removeKeys({a: 1, b: 2}, ['a'])")).toEqual({ b: 2 })
  })
})
