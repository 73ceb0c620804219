/** Heap an entry costs besides its text: the string's header, the entry object and its Map slot (measured). */
const ENTRY_BYTES = 100

/** What a value costs in the heap: one byte a character when it is ASCII (V8's one-byte strings), else two. */
const heapBytes = (text: string, utf8Bytes: number) =>
  (utf8Bytes === text.length ? utf8Bytes : 2 * text.length) + ENTRY_BYTES

/**
 * The payload file's read cache: values by record offset, least recently used out first, bounded by the heap
 * the entries take (a bound counted in UTF-8 bytes alone let 16 MiB of values hold 20 MB of heap, measured).
 * A value larger than the whole bound is returned but not kept, so one huge read cannot flush everything.
 */
export class PayloadCache {
  /** Map order is use order: a hit moves its entry to the end, eviction takes from the front. */
  private readonly entries = new Map<number, { text: string; bytes: number }>()
  private held = 0
  private hits = 0
  private misses = 0

  constructor(private readonly limit: number) {}

  get(offset: number): string | undefined {
    const entry = this.entries.get(offset)
    if (entry === undefined) {
      this.misses++
      return undefined
    }
    this.hits++
    this.entries.delete(offset)
    this.entries.set(offset, entry)
    return entry.text
  }

  set(offset: number, text: string, utf8Bytes: number): void {
    const bytes = heapBytes(text, utf8Bytes)
    if (bytes > this.limit || this.entries.has(offset)) return
    this.entries.set(offset, { text, bytes })
    this.held += bytes
    for (const [oldest, entry] of this.entries) {
      if (this.held <= this.limit) break
      this.entries.delete(oldest)
      this.held -= entry.bytes
    }
  }

  stats(): { bytes: number; limit: number; hits: number; misses: number } {
    return { bytes: this.held, limit: this.limit, hits: this.hits, misses: this.misses }
  }
}
