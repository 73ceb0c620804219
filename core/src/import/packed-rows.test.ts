import papa from 'papaparse'
import { describe, expect, it } from 'vitest'
import { PackedRow, PackedRowsBuilder } from './packed-rows.js'

describe('packed CSV rows', () => {
  it('gives back every record and field as added, empty fields and ragged records included', () => {
    const records = [['1', 'Ada', ''], ['', 'x,y "q"'], ['-7', 'ünïcødé', '3', '4'], []]
    const builder = new PackedRowsBuilder()
    for (const r of records) builder.add(r)
    expect(builder.rows).toBe(4)
    const packed = builder.take()
    expect(builder.rows).toBe(0)
    const row = new PackedRow()
    const back = records.map((_, i) => {
      row.at(packed, i)
      return { count: row.count, fields: row.fields(), second: row.count > 1 ? row.field(1) : null }
    })
    expect(back.map((b) => b.fields)).toEqual(records)
    expect(back.map((b) => b.count)).toEqual([3, 2, 4, 0])
    expect(back[1]!.second).toBe('x,y "q"')
  })

  it('grows past its first offset table', () => {
    const builder = new PackedRowsBuilder()
    for (let i = 0; i < 1000; i++) builder.add([String(i), `n${i}`, 'z'])
    const packed = builder.take()
    const row = new PackedRow()
    row.at(packed, 999)
    expect(row.fields()).toEqual(['999', 'n999', 'z'])
    expect(row.shortInteger(0)).toBe(999)
  })

  it('reads short integers by character code and refuses everything else', () => {
    const texts = [
      '0',
      '-0',
      '42',
      '-17',
      '123456789012345',
      '1234567890123456',
      '',
      '-',
      '+5',
      ' 5',
      '5 ',
      '1.0',
      'x',
    ]
    const builder = new PackedRowsBuilder()
    // an empty field before a negative number must not borrow its sign
    builder.add(['', '-5'])
    builder.add(texts)
    const packed = builder.take()
    const row = new PackedRow()
    row.at(packed, 0)
    expect(row.shortInteger(0)).toBeNaN()
    expect(row.shortInteger(1)).toBe(-5)
    row.at(packed, 1)
    const values = texts.map((_, j) => row.shortInteger(j))
    expect(values.slice(0, 5)).toEqual([0, -0, 42, -17, 123456789012345])
    for (const v of values.slice(5)) expect(v).toBeNaN()
  })

  it.each(['\n', '\r\n', '\r'] as const)(
    'splits lines without quotes as papaparse does (line end %j)',
    (newline) => {
      const lines = ['1,2,3', '', 'a,,', ',', 'x', '', '', 'lone\rcr', 'tab\there,9', 'ünï,😀']
      for (const tail of ['', newline]) {
        const text = lines.filter((l) => newline !== '\r' || !l.includes('\r')).join(newline) + tail
        const parsed = papa.parse<string[]>(text, { delimiter: ',', newline, quoteChar: '"' })
        const expected = parsed.data.filter((r) => r.length > 1 || r[0] !== '')
        const builder = new PackedRowsBuilder()
        builder.add(['before', 'it'])
        builder.addLines(text, ',', newline)
        builder.add(['after'])
        const packed = builder.take()
        const row = new PackedRow()
        const back = Array.from(packed.rowEnds, (_, i) => {
          row.at(packed, i)
          return row.fields()
        })
        expect(back).toEqual([['before', 'it'], ...expected, ['after']])
      }
    },
  )

  it('reads integers from split lines by their offsets', () => {
    const builder = new PackedRowsBuilder()
    builder.addLines('12,-3,x\n\n45,,6', ',', '\n')
    const packed = builder.take()
    const row = new PackedRow()
    row.at(packed, 0)
    expect([row.shortInteger(0), row.shortInteger(1), row.shortInteger(2)]).toEqual([12, -3, Number.NaN])
    row.at(packed, 1)
    expect([row.shortInteger(0), row.shortInteger(1), row.shortInteger(2)]).toEqual([45, Number.NaN, 6])
  })
})
