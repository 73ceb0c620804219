import { describe, expect, it } from 'vitest'
import { orderCompare, type Value } from '../cypher/values.js'
import { orderKeysOf } from './column-order.js'
import { buildColumn } from './columns.js'
import type { PropertyValue } from './types.js'

const columnOf = (values: (PropertyValue | undefined)[]) =>
  buildColumn(
    Int32Array.from(values.keys()),
    (id) => (values[id] === undefined ? new Map() : new Map([[0, values[id] as PropertyValue]])),
    0,
  )

/** Every pair of placed keys compares as Cypher's ORDER BY compares their values. */
function expectOrderKept(values: (PropertyValue | undefined)[]): Float64Array {
  const keys = orderKeysOf(columnOf(values))?.keys as Float64Array
  for (let a = 0; a < values.length; a++)
    for (let b = 0; b < values.length; b++) {
      const [x, y] = [keys[a] as number, keys[b] as number]
      if (Number.isNaN(x) || Number.isNaN(y)) continue
      const sign = Math.sign(orderCompare((values[a] ?? null) as Value, (values[b] ?? null) as Value)) || 0
      expect(Math.sign(x - y) || 0, `${String(values[a])} vs ${String(values[b])}`).toBe(sign)
    }
  return keys
}

describe('column order keys', () => {
  it('places numbers exactly and leaves every other cell (null, NaN, big integers, strings) to the caller', () => {
    const keys = expectOrderKept([
      3n,
      2.5,
      undefined,
      Number.NaN,
      -0,
      0n,
      Number.POSITIVE_INFINITY,
      2n ** 53n,
      2n ** 53n + 1n,
      'x',
      true,
      [1n],
      -7n,
    ])
    expect([...keys].map((key) => Number.isNaN(key))).toEqual([
      false,
      false,
      true,
      true,
      false,
      false,
      false,
      false,
      true,
      true,
      true,
      true,
      false,
    ])
  })

  it('ranks the strings of an all-string column and places absent strings between ranks', () => {
    const values = ['pear', 'apple', undefined, 'Zoo', 'apple', 'äpfel', '']
    const keys = expectOrderKept(values)
    expect(Number.isNaN(keys[2])).toBe(true)
    const order = orderKeysOf(columnOf(values))
    for (const probe of ['apple', 'b', '', 'zzz', 'A', 'pear!']) {
      const at = order?.position(probe) as number
      values.forEach((value, i) => {
        if (value === undefined) return
        expect(Math.sign((keys[i] as number) - at) || 0, `${value} vs ${probe}`).toBe(
          Math.sign(orderCompare(value, probe)) || 0,
        )
      })
    }
    expect(order?.position(1n)).toBeUndefined()
  })

  it('has no order keys for a column of neither numbers nor only strings', () => {
    expect(orderKeysOf(columnOf([true, 'a', undefined]))).toBeUndefined()
    expect(orderKeysOf(columnOf([undefined, undefined]))).toBeUndefined()
  })

  it('places numeric constants only when they are exact doubles', () => {
    const order = orderKeysOf(columnOf([1n]))
    expect(order?.position(5n)).toBe(5)
    expect(order?.position(-2.5)).toBe(-2.5)
    expect(order?.position(Number.NaN)).toBeUndefined()
    expect(order?.position(2n ** 60n)).toBeUndefined()
    expect(order?.position('5')).toBeUndefined()
    expect(order?.position(null)).toBeUndefined()
  })
})
