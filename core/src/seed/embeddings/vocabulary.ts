/**
 * A word list as one string plus typed arrays: the words joined by '\n', where each starts, and an
 * open-addressing hash table from word to rank. It is built once (in the loader's worker thread) and
 * moves to the main thread as one string and transferred buffers, so the 400k-word GloVe vocabulary never
 * exists there as 400k strings in a Map: ~40 MB less heap, and no main-thread loop over the vocabulary.
 * The model's constructor loop (the Map fill and the SIF weights; the weight loop alone sufficed) was
 * measured to leave V8 creating Node's nextTick objects through the runtime
 * (Runtime_DefineKeyedOwnPropertyInLiteral in perf) for the life of the process: ~0.4 µs instead of
 * ~0.05 µs per tick, ~4 µs per HTTP request (`pnpm bench health` shows it).
 */
export interface PackedVocabulary {
  /** The words in rank order, each followed by '\n'. */
  text: string
  /** offsets[i] is where word i starts in `text`; offsets[count] is text.length. */
  offsets: Uint32Array
  /** Power-of-two table of word ranks, -1 for an empty slot; linear probing. */
  slots: Int32Array
}

/** FNV-1a over UTF-16 code units of `text[start, end)`. */
function hashRange(text: string, start: number, end: number): number {
  let h = 0x811c9dc5
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return h >>> 0
}

export function packVocabulary(words: readonly string[]): PackedVocabulary {
  return vocabularyFromText(words.map((w) => `${w}\n`).join(''))
}

/** From the words in rank order, each followed by '\n' (the cache file's form). */
export function vocabularyFromText(text: string): PackedVocabulary {
  let count = 0
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++
  const offsets = new Uint32Array(count + 1)
  for (let i = 0, at = 0; i < count; i++) {
    offsets[i] = at
    at = text.indexOf('\n', at) + 1
  }
  offsets[count] = text.length
  let size = 1
  while (size < count * 2) size <<= 1
  const slots = new Int32Array(size).fill(-1)
  const mask = size - 1
  for (let rank = 0; rank < count; rank++) {
    const start = offsets[rank] as number
    const length = (offsets[rank + 1] as number) - 1 - start
    let slot = hashRange(text, start, start + length) & mask
    // A repeated word keeps its first (most frequent) rank, as a Map filled in rank order would.
    while (slots[slot] !== -1 && !sameWord(text, offsets, slots[slot] as number, text, start, length))
      slot = (slot + 1) & mask
    if (slots[slot] === -1) slots[slot] = rank
  }
  return { text, offsets, slots }
}

function sameWord(
  text: string,
  offsets: Uint32Array,
  rank: number,
  other: string,
  otherStart: number,
  otherLength: number,
): boolean {
  const start = offsets[rank] as number
  if ((offsets[rank + 1] as number) - 1 - start !== otherLength) return false
  for (let k = 0; k < otherLength; k++)
    if (text.charCodeAt(start + k) !== other.charCodeAt(otherStart + k)) return false
  return true
}

/** Rank of `word`, or -1 when it is not in the vocabulary. */
export function vocabularyRank(v: PackedVocabulary, word: string): number {
  const mask = v.slots.length - 1
  let slot = hashRange(word, 0, word.length) & mask
  for (;;) {
    const rank = v.slots[slot] as number
    if (rank === -1) return -1
    if (sameWord(v.text, v.offsets, rank, word, 0, word.length)) return rank
    slot = (slot + 1) & mask
  }
}

export function vocabularySize(v: PackedVocabulary): number {
  return v.offsets.length - 1
}
