/**
 * Numbers by record id in typed-array pages made on first write. Ids come from one space per engine (see
 * graph/id-space.ts), so a workspace's ids need not start near 0: a workspace of 5,000 records whose ids begin
 * at 2,000,000 would make a flat array 2M long. Pages hold only the ids a workspace has written, and a
 * flat array's doubling slack (a quarter on average) goes too. A read of an id with no page gives `empty`.
 *
 * `width` numbers per id (fields of one record side by side, or an id's 16 bytes): a page holds `PAGE_IDS`
 * ids, `PAGE_IDS * width` numbers.
 */
export type NumericArray =
  | Int8Array
  | Uint8Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | Float32Array
  | Float64Array

const SHIFT = 12
export const PAGE_IDS = 1 << SHIFT
const MASK = PAGE_IDS - 1

export class PagedArray<T extends NumericArray> {
  private pages: (T | undefined)[] = []

  constructor(
    private readonly Kind: new (length: number) => T,
    readonly width = 1,
    readonly empty = 0,
  ) {}

  get(id: number, field = 0): number {
    // `>>>` sends a negative id to a page index past any page: it reads as empty.
    const page = this.pages[id >>> SHIFT]
    return page === undefined ? this.empty : (page[(id & MASK) * this.width + field] as number)
  }

  set(id: number, value: number, field = 0): void {
    this.pageFor(id)[(id & MASK) * this.width + field] = value
  }

  /** The page holding `id`, made (filled with `empty`) if absent; the id's numbers start at `offset(id)`. */
  pageFor(id: number): T {
    if (id < 0 || !Number.isInteger(id)) throw new RangeError(`not a record id: ${id}`)
    const index = id >>> SHIFT
    let page = this.pages[index]
    if (page === undefined) {
      page = new this.Kind(PAGE_IDS * this.width)
      if (this.empty !== 0) page.fill(this.empty)
      // Fill the holes below first: a write far past the end must not turn the list into a dictionary.
      while (this.pages.length < index) this.pages.push(undefined)
      this.pages[index] = page
    }
    return page
  }

  /** The page holding `id`, or undefined when no id of it was written. */
  pageOf(id: number): T | undefined {
    return this.pages[id >>> SHIFT]
  }

  /** Where `id`'s numbers start in its page. */
  offset(id: number): number {
    return (id & MASK) * this.width
  }

  /** One past the highest id a page covers. */
  get limit(): number {
    return this.pages.length * PAGE_IDS
  }

  /** The first id of each page that exists, ascending: a loop over ids skips the pages never written. */
  *pageStarts(): IterableIterator<number> {
    for (let index = 0; index < this.pages.length; index++)
      if (this.pages[index] !== undefined) yield index * PAGE_IDS
  }

  /** Bytes the pages take. */
  get bytes(): number {
    let bytes = 0
    for (const page of this.pages) if (page !== undefined) bytes += page.byteLength
    return bytes
  }

  clear(): void {
    this.pages = []
  }
}
