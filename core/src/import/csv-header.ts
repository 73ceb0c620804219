/**
 * Header lines in the conventions of `neo4j-admin database import`: `name:type` fields, where the type is a
 * property type (`int`, `string[]`, …) or a role (`:ID(space)`, `:LABEL`, `:START_ID(space)`, `:END_ID(space)`,
 * `:TYPE`, `:IGNORE`). A field without a type is a string property.
 */

export type ScalarType =
  | 'string'
  | 'int'
  | 'float'
  | 'boolean'
  | 'date'
  | 'datetime'
  | 'localdatetime'
  | 'time'
  | 'localtime'

export type ColumnSpec =
  | { role: 'property'; name: string; type: ScalarType; array: boolean }
  /** The record's id; `name` (when the field has one) also keeps the id as a string property. */
  | { role: 'id'; name: string | null; space: string }
  | { role: 'label' }
  | { role: 'start'; space: string }
  | { role: 'end'; space: string }
  | { role: 'type' }
  | { role: 'ignore' }

export type FileKind = 'nodes' | 'relationships'

/** The id space of id columns without a `(group)`. */
export const GLOBAL_ID_SPACE = 'global'

/** neo4j-admin's type names, with its aliases folded onto our value types (all integers are 64-bit). */
const TYPES: Record<string, ScalarType> = {
  string: 'string',
  char: 'string',
  int: 'int',
  long: 'int',
  short: 'int',
  byte: 'int',
  float: 'float',
  double: 'float',
  boolean: 'boolean',
  date: 'date',
  datetime: 'datetime',
  localdatetime: 'localdatetime',
  time: 'time',
  localtime: 'localtime',
}

const ROLE_WITH_SPACE = /^(ID|START_ID|END_ID)(?:\((.*)\))?$/

/** Parses one header field; throws a message naming the field when it is not understood. */
export function parseHeaderField(field: string): ColumnSpec {
  const colon = field.lastIndexOf(':')
  const name = (colon < 0 ? field : field.slice(0, colon)).trim()
  const type = colon < 0 ? '' : field.slice(colon + 1).trim()
  const role = ROLE_WITH_SPACE.exec(type)
  if (role !== null) {
    const space = role[2] === undefined || role[2].trim() === '' ? GLOBAL_ID_SPACE : role[2].trim()
    if (role[1] === 'ID') return { role: 'id', name: name === '' ? null : name, space }
    return { role: role[1] === 'START_ID' ? 'start' : 'end', space }
  }
  if (type === 'LABEL') return { role: 'label' }
  if (type === 'TYPE') return { role: 'type' }
  if (type === 'IGNORE') return { role: 'ignore' }
  if (name === '') throw new Error(`header field ${JSON.stringify(field)} has no property name`)
  const array = type.endsWith('[]')
  const base = (array ? type.slice(0, -2) : type).toLowerCase()
  const scalar = base === '' ? 'string' : TYPES[base]
  if (scalar === undefined)
    throw new Error(
      `header field ${JSON.stringify(field)} has an unknown type ${JSON.stringify(type)} (known: ${Object.keys(TYPES).join(', ')}, each with [] for an array)`,
    )
  return { role: 'property', name, type: scalar, array }
}

export interface Header {
  columns: ColumnSpec[]
  /** Index of the id column (nodes), the start and end columns (relationships); -1 when absent. */
  id: number
  start: number
  end: number
  /** Index of the `:TYPE` column; -1 when the type comes from the command line. */
  type: number
}

/** Parses a whole header line of a nodes or relationships file and checks the roles it must (not) have. */
export function parseHeader(fields: readonly string[], kind: FileKind): Header {
  const columns = fields.map(parseHeaderField)
  const only = (role: ColumnSpec['role']) => {
    const at = columns.flatMap((c, i) => (c.role === role ? [i] : []))
    if (at.length > 1) throw new Error(`the header has ${at.length} :${roleName(role)} columns; one at most`)
    return at[0] ?? -1
  }
  const header: Header = {
    columns,
    id: only('id'),
    start: only('start'),
    end: only('end'),
    type: only('type'),
  }
  only('label')
  const names = columns.flatMap((c) => (c.role === 'property' || (c.role === 'id' && c.name) ? [c.name] : []))
  const twice = names.find((n, i) => names.indexOf(n) !== i)
  if (twice !== undefined) throw new Error(`the header names property ${JSON.stringify(twice)} twice`)
  if (kind === 'relationships') {
    if (header.start < 0 || header.end < 0)
      throw new Error('a relationships header needs a :START_ID and an :END_ID column')
    if (header.id >= 0 || columns.some((c) => c.role === 'label'))
      throw new Error('a relationships header has no :ID or :LABEL column')
  } else if (header.start >= 0 || header.end >= 0 || header.type >= 0) {
    throw new Error('a nodes header has no :START_ID, :END_ID or :TYPE column')
  }
  return header
}

const roleName = (role: ColumnSpec['role']) =>
  ({
    id: 'ID',
    start: 'START_ID',
    end: 'END_ID',
    label: 'LABEL',
    type: 'TYPE',
    ignore: 'IGNORE',
    property: '',
  })[role]
