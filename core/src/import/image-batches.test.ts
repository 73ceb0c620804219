import { describe, expect, it } from 'vitest'
import { columnLineText } from '../storage/column-line.js'
import { ColumnLineBytes } from '../storage/column-line-bytes.js'
import { RelationshipImageBatch } from './image-batches.js'
import { RowValues } from './row-values.js'

type Value = number | string
/** Adds relationship `id` with `props` (numbers as short integers, strings as strings). */
function add(batch: RelationshipImageBatch, id: number, props: [string, Value][]): void {
  const row = new RowValues()
  for (const [, v] of props) {
    if (typeof v === 'number') row.pushInt(v)
    else row.push(v)
  }
  const names = props.map(([n]) => n)
  batch.add(id, 'T', 1, 2, { key: names.join('\u0000'), names }, row)
}

/** The image's props object for the rows: `{"<row>":{"<name>":<encoded value>}}`. */
function expected(rows: [string, Value][][]): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {}
  rows.forEach((props, at) => {
    if (props.length > 0)
      out[at] = Object.fromEntries(props.map(([n, v]) => [n, typeof v === 'number' ? { i: String(v) } : v]))
  })
  return out
}

const rows: [string, Value][][] = [
  [['since', 2002]],
  [],
  [
    ['wé"', -7],
    ['since', 0],
  ],
  [
    ['since', 123456789012345],
    ['wé"', 1],
  ],
  [['wé"', -0]],
]

describe('relationship image batches', () => {
  it('keeps integer properties as columns the file writer spells as the engine would', () => {
    const batch = new RelationshipImageBatch('default', null)
    for (const [id, props] of rows.entries()) add(batch, id, props)
    const line = batch.line()
    const text = columnLineText(line)
    expect(JSON.parse(text).props).toEqual(expected(rows))
    // key order within a relationship is kept
    expect(Object.keys(JSON.parse(text).props['2'])).toEqual(['wé"', 'since'])
    expect(new ColumnLineBytes().encode(line).toString('utf8')).toBe(`${text}\n`)
  })

  it('turns to text at the first value that is not a short integer, the rows before it included', () => {
    const batch = new RelationshipImageBatch('default', null)
    const mixed: [string, Value][][] = [...rows, [['note', 'x "y"']], [['since', 5]]]
    for (const [id, props] of mixed.entries()) add(batch, id, props)
    const line = batch.line()
    const props = line.fields.find(([name]) => name === 'props')![1]
    expect(typeof props).toBe('string')
    expect(JSON.parse(columnLineText(line)).props).toEqual(expected(mixed))
  })
})
