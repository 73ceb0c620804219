import { PagedArray } from '../paged-array.js'
import { PayloadRef, type PayloadSource } from './payload-ref.js'
import { joinTypedId, splitTypedId } from './typed-id.js'
import type { PropertyValue } from './types.js'

export type RelSlot = PropertyValue | PayloadRef

/** A slot whose value is in the column's payload addresses, or in its typed ids. */
const IN_REFS: unique symbol = Symbol('payload address')
const IN_IDS: unique symbol = Symbol('typed id')
type Cell = RelSlot | typeof IN_REFS | typeof IN_IDS | undefined

/** Where an id's 16 bytes are parsed before they are known to be one. */
const scratch = new Uint8Array(16)

/** Prefixes a column numbers for its typed ids; past this, ids stay strings. */
const MAX_PREFIXES = 65_535

/**
 * One relationship property key's values by relationship id. A graph of millions of relationships keeps two
 * kinds of value compactly: a payload reference as its address in two typed arrays (12 bytes, not a 48-byte
 * `PayloadRef` object), and an id like `relationship--<uuid>` as a prefix number and 16 bytes (not a 72-byte
 * string). Readers get the same slots either way: the reference or the string is made when read.
 */
export class RelColumn {
  private cells: Cell[] = []
  /** Where references of this column point: the first one's source (another source keeps its objects). */
  private source: PayloadSource | null = null
  /** Payload address (offset, size) per id, and the typed id's prefix number and 16 bytes: pages by id. */
  private readonly offsets = new PagedArray(Float64Array)
  private readonly sizes = new PagedArray(Uint32Array)
  private prefixes: string[] = []
  private prefixNumber = new Map<string, number>()
  private readonly prefixOf = new PagedArray(Uint16Array)
  private readonly uuids = new PagedArray(Uint8Array, 16)

  get length(): number {
    return this.cells.length
  }

  /** The raw slot at `id` (a reference unread), or undefined. */
  slot(id: number): RelSlot | undefined {
    const cell = this.cells[id]
    if (cell === IN_REFS)
      return new PayloadRef(this.source as PayloadSource, this.offsets.get(id), this.sizes.get(id))
    if (cell === IN_IDS)
      return joinTypedId(
        this.prefixes[this.prefixOf.get(id)] as string,
        this.uuids.pageOf(id) as Uint8Array,
        this.uuids.offset(id),
      )
    return cell
  }

  set(id: number, value: RelSlot): void {
    if (value instanceof PayloadRef) {
      const source = value.sourceOf()
      this.source ??= source
      if (source === this.source && Number.isSafeInteger(value.offset) && value.bytes <= 0xffffffff) {
        this.offsets.set(id, value.offset)
        this.sizes.set(id, value.bytes)
        this.cells[id] = IN_REFS
        return
      }
    } else if (
      typeof value === 'string' &&
      value.length >= 39 &&
      value.length <= 200 &&
      this.setId(id, value)
    ) {
      return
    }
    this.cells[id] = value
  }

  /** An assignment, not `delete`: deleting an element turns a fast array into a dictionary. */
  clear(id: number): void {
    if (id < this.cells.length) this.cells[id] = undefined
  }

  private setId(id: number, value: string): boolean {
    // Parsed aside first: a column of other mid-length strings allocates no id arrays.
    const prefix = splitTypedId(value, scratch, 0)
    if (prefix === null) return false
    let number = this.prefixNumber.get(prefix)
    if (number === undefined) {
      if (this.prefixes.length >= MAX_PREFIXES) return false
      number = this.prefixes.length
      this.prefixes.push(prefix)
      this.prefixNumber.set(prefix, number)
    }
    this.uuids.pageFor(id).set(scratch, this.uuids.offset(id))
    this.prefixOf.set(id, number)
    this.cells[id] = IN_IDS
    return true
  }
}
