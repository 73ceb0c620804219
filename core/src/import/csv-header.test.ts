import { describe, expect, it } from 'vitest'
import { formatTemporal } from '../cypher/temporal/format.js'
import type { TemporalValue } from '../cypher/temporal/values.js'
import { GLOBAL_ID_SPACE, parseHeader, parseHeaderField } from './csv-header.js'
import { fieldValue, scalarValue } from './csv-values.js'

describe('neo4j-admin header fields', () => {
  it('reads roles, id spaces and typed properties', () => {
    expect(parseHeaderField('personId:ID(Person)')).toEqual({ role: 'id', name: 'personId', space: 'Person' })
    expect(parseHeaderField(':ID')).toEqual({ role: 'id', name: null, space: GLOBAL_ID_SPACE })
    expect(parseHeaderField(':START_ID(Person)')).toEqual({ role: 'start', space: 'Person' })
    expect(parseHeaderField(':END_ID')).toEqual({ role: 'end', space: GLOBAL_ID_SPACE })
    expect(parseHeaderField(':LABEL')).toEqual({ role: 'label' })
    expect(parseHeaderField(':TYPE')).toEqual({ role: 'type' })
    expect(parseHeaderField('x:IGNORE')).toEqual({ role: 'ignore' })
    expect(parseHeaderField('name')).toEqual({ role: 'property', name: 'name', type: 'string', array: false })
    expect(parseHeaderField('age:long')).toEqual({ role: 'property', name: 'age', type: 'int', array: false })
    expect(parseHeaderField('score:double')).toEqual({
      role: 'property',
      name: 'score',
      type: 'float',
      array: false,
    })
    expect(parseHeaderField('tags:string[]')).toEqual({
      role: 'property',
      name: 'tags',
      type: 'string',
      array: true,
    })
    expect(parseHeaderField('born:date')).toMatchObject({ type: 'date' })
  })

  it('refuses unknown types and nameless properties with the field in the message', () => {
    expect(() => parseHeaderField('age:integer')).toThrow(/"age:integer" has an unknown type "integer"/)
    expect(() => parseHeaderField(':int')).toThrow(/no property name/)
  })

  it('checks the roles a nodes or a relationships header must have', () => {
    expect(parseHeader(['id:ID', 'name', ':LABEL'], 'nodes')).toMatchObject({ id: 0, start: -1, type: -1 })
    expect(parseHeader([':START_ID', ':END_ID', ':TYPE', 'w:int'], 'relationships')).toMatchObject({
      start: 0,
      end: 1,
      type: 2,
    })
    expect(() => parseHeader([':START_ID', 'w:int'], 'relationships')).toThrow(/:START_ID and an :END_ID/)
    expect(() => parseHeader(['id:ID', ':END_ID'], 'nodes')).toThrow(/nodes header has no/)
    expect(() => parseHeader(['a:ID', 'b:ID'], 'nodes')).toThrow(/2 :ID columns/)
    expect(() => parseHeader(['a', 'a:int'], 'nodes')).toThrow(/property "a" twice/)
  })
})

describe('field values', () => {
  it('converts each type and says what a bad field is not', () => {
    expect(scalarValue(' 42 ', 'int')).toBe(42n)
    expect(scalarValue('9223372036854775807', 'int')).toBe(9223372036854775807n)
    expect(() => scalarValue('9223372036854775808', 'int')).toThrow(/64-bit/)
    expect(() => scalarValue('abc', 'int')).toThrow(/"abc" is not an integer/)
    expect(scalarValue('2.5e3', 'float')).toBe(2500)
    expect(() => scalarValue('1,5', 'float')).toThrow(/not a number/)
    expect(scalarValue('TRUE', 'boolean')).toBe(true)
    expect(() => scalarValue('yes', 'boolean')).toThrow(/not a boolean/)
    expect(() => scalarValue('2024-13-01', 'date')).toThrow(/not a date/)
    expect(formatTemporal(scalarValue('2024-02-29', 'date') as TemporalValue)).toBe('2024-02-29')
  })

  it('splits arrays on the array delimiter and treats an empty field as no property', () => {
    expect(fieldValue('a;b;c', 'string', true, ';')).toEqual(['a', 'b', 'c'])
    expect(fieldValue('1|2', 'int', true, '|')).toEqual([1n, 2n])
    expect(fieldValue('', 'int', false, ';')).toBeUndefined()
    expect(fieldValue('', 'string', true, ';')).toBeUndefined()
  })
})
