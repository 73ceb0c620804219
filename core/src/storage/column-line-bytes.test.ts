import { describe, expect, it } from 'vitest'
import { type ColumnLine, columnLineText } from './column-line.js'
import { ColumnLineBytes } from './column-line-bytes.js'

const line = (values: number[], text = '"x"'): ColumnLine => ({
  fields: [
    ['kind', '"graph_rels"'],
    ['id', Float64Array.from(values)],
    ['props', text],
    ['créé', new Float64Array(0)],
  ],
})

describe('ColumnLineBytes', () => {
  it('writes the bytes of the line text and a newline', () => {
    const values = [0, -0, 1, 9, 10, 99, 100, 12345, -7, -1000, 2 ** 31, 2 ** 53 - 1, -(2 ** 53 - 1)]
    const bytes = new ColumnLineBytes().encode(line(values, '{"é":"日本","s":"😀"}'))
    expect(bytes.toString('utf8')).toBe(`${columnLineText(line(values, '{"é":"日本","s":"😀"}'))}\n`)
  })

  it('writes numbers that are not small integers as their own text', () => {
    const values = [0.5, -1.25e-300, 2 ** 53, -(2 ** 60), 1e21, Number.NaN, Number.POSITIVE_INFINITY, 123.456]
    expect(new ColumnLineBytes().encode(line(values)).toString('utf8')).toBe(
      `${columnLineText(line(values))}\n`,
    )
  })

  it('matches the text for random integer columns, growing its buffer', () => {
    const encoder = new ColumnLineBytes()
    let seed = 7
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed / 2 ** 31
    }
    for (const size of [1, 100, 40_000]) {
      const values = Array.from({ length: size }, () =>
        Math.floor((random() - 0.3) * 10 ** Math.floor(random() * 16)),
      )
      expect(encoder.encode(line(values)).toString('utf8')).toBe(`${columnLineText(line(values))}\n`)
    }
  })
})
