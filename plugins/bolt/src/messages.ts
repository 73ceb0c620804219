import type { PackValue } from './packstream/structure.js'

/** Request message signatures (Bolt 5). */
export const Request = {
  HELLO: 0x01,
  GOODBYE: 0x02,
  RESET: 0x0f,
  RUN: 0x10,
  BEGIN: 0x11,
  COMMIT: 0x12,
  ROLLBACK: 0x13,
  DISCARD: 0x2f,
  PULL: 0x3f,
  TELEMETRY: 0x54,
  ROUTE: 0x66,
  LOGON: 0x6a,
  LOGOFF: 0x6b,
} as const

/** Response message signatures. */
export const Response = {
  SUCCESS: 0x70,
  RECORD: 0x71,
  IGNORED: 0x7e,
  FAILURE: 0x7f,
} as const

export const REQUEST_NAMES: Readonly<Record<number, string>> = Object.fromEntries(
  Object.entries(Request).map(([name, signature]) => [signature, name]),
)

/** A decoded request: its name (or `UNKNOWN`) and fields. */
export interface RequestMessage {
  signature: number
  name: string
  fields: PackValue[]
}

export class MessageShapeError extends Error {
  override readonly name = 'MessageShapeError'
}

/** Field `index` as a map (absent: empty). */
export function mapField(message: RequestMessage, index: number): Map<string, PackValue> {
  const value = message.fields[index]
  if (value === undefined || value === null) return new Map()
  if (!(value instanceof Map)) throw new MessageShapeError(`${message.name} field ${index + 1} must be a map`)
  return value
}

export function stringField(message: RequestMessage, index: number): string {
  const value = message.fields[index]
  if (typeof value !== 'string')
    throw new MessageShapeError(`${message.name} field ${index + 1} must be a string`)
  return value
}

/** An optional string entry of a metadata map. */
export function optionalString(map: Map<string, PackValue>, key: string): string | undefined {
  const value = map.get(key)
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string') throw new MessageShapeError(`'${key}' must be a string`)
  return value
}

/** An optional integer entry (a float holding an integer is taken, as drivers and LangChain send them). */
export function optionalInteger(map: Map<string, PackValue>, key: string): number | undefined {
  const value = map.get(key)
  if (value === undefined || value === null) return undefined
  if (typeof value === 'bigint') return Number(value)
  if (typeof value === 'number' && Number.isInteger(value)) return value
  throw new MessageShapeError(`'${key}' must be an integer`)
}

export function optionalStringList(map: Map<string, PackValue>, key: string): string[] {
  const value = map.get(key)
  if (value === undefined || value === null) return []
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string'))
    throw new MessageShapeError(`'${key}' must be a list of strings`)
  return value as string[]
}
