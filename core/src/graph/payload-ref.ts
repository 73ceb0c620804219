import type { PropertyValue } from './types.js'

/** Where a value lives in the payload file (storage/payload-file.ts implements the source). */
export interface PayloadAddress {
  readonly offset: number
  readonly bytes: number
}

/** Reads a value back by its address: the payload file behind its bounded cache. */
export interface PayloadSource {
  read(address: PayloadAddress): string
  /** The same value, left out of the cache: a scan over every payload (an index rebuild) would flush it. */
  peek?(address: PayloadAddress): string
}

/** Writes values once and reads them back (the payload file: `append` and `read`). */
export interface PayloadStore extends PayloadSource {
  append(text: string): PayloadAddress
}

/**
 * A long string property kept in the payload file instead of the heap (issue 39): ~30 bytes resident instead of
 * the text. Only the stores' own containers (PropertyMap, RelPropertyColumns) ever hold one; they resolve it on
 * every read, so a reader sees the same string it would have seen had the value stayed resident.
 */
export class PayloadRef implements PayloadAddress {
  constructor(
    private readonly source: PayloadSource,
    readonly offset: number,
    readonly bytes: number,
  ) {}

  value(): string {
    return this.source.read(this)
  }

  /** The file it points into (a column that stores addresses keeps it once). */
  sourceOf(): PayloadSource {
    return this.source
  }

  /** The value, read past the cache when not in it (see PayloadSource.peek). */
  peek(): string {
    return this.source.peek?.(this) ?? this.source.read(this)
  }
}

/** A stored slot's value as readers see it. */
export const resolved = (value: PropertyValue | PayloadRef): PropertyValue =>
  value instanceof PayloadRef ? value.value() : value

/**
 * Turns a long string into a reference to its copy appended to `payloads`; other values come back as they are.
 * `minChars` is in UTF-16 units: a cheap test before any encoding.
 */
export function externalized(
  value: PropertyValue | PayloadRef,
  minChars: number,
  payloads: PayloadStore,
): PropertyValue | PayloadRef {
  if (typeof value !== 'string' || value.length < minChars) return value
  const { offset, bytes } = payloads.append(value)
  return new PayloadRef(payloads, offset, bytes)
}

/** A reference as a checkpoint cell: `{"$payload":[offset,bytes]}` (record format JsonLinesV3; never in the log). */
export interface PayloadCell {
  $payload: [number, number]
}

export const payloadCell = (ref: PayloadAddress): PayloadCell => ({ $payload: [ref.offset, ref.bytes] })

export function isPayloadCell(value: unknown): value is PayloadCell {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
  const address = (value as { $payload?: unknown }).$payload
  return (
    Array.isArray(address) &&
    address.length === 2 &&
    Number.isSafeInteger(address[0]) &&
    Number.isSafeInteger(address[1]) &&
    (address[0] as number) >= 0 &&
    (address[1] as number) >= 0
  )
}

/** A stored slot: a value, or a reference to one in the payload file. */
export type PropertySlot = PropertyValue | PayloadRef
