/**
 * A growable list of ids in an Int32Array: 4 bytes an id, and appending never rehashes. The label index,
 * recovery's pending relationships and the seed index's queue of stale nodes each hold millions of them.
 */
export class IdList {
  private data: Int32Array
  length = 0

  constructor(capacity = 16) {
    this.data = new Int32Array(capacity)
  }

  push(id: number): void {
    if (this.length === this.data.length) this.data = grown(this.data, this.length + 1)
    this.data[this.length++] = id
  }

  at(index: number): number {
    return this.data[index] as number
  }

  set(index: number, id: number): void {
    this.data[index] = id
  }

  /** The ids from `from` on, as a view (valid until the list changes). */
  view(from = 0): Int32Array {
    return this.data.subarray(from, this.length)
  }

  /** Keeps the first `length` ids. */
  truncate(length: number): void {
    this.length = length
  }

  /** Drops the first `count` ids, moving the rest to the front. */
  dropFront(count: number): void {
    this.data.copyWithin(0, count, this.length)
    this.length -= count
  }

  /** The ids so far; the list is empty afterwards. */
  take(): Int32Array {
    const ids = this.data.subarray(0, this.length)
    this.data = new Int32Array(16)
    this.length = 0
    return ids
  }
}

/** A copy of `array` at least `atLeast` long (doubling), the rest zero. */
export function grown<T extends Int32Array | Uint8Array | Uint16Array | Uint32Array | Float64Array>(
  array: T,
  atLeast: number,
): T {
  let size = Math.max(16, array.length * 2)
  while (size < atLeast) size *= 2
  const bigger = new (array.constructor as new (length: number) => T)(size)
  bigger.set(array)
  return bigger
}
