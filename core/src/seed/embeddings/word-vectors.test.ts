import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { vocabularyRank, vocabularySize } from './vocabulary.js'
import { loadWordVectorsSync, WordVectorModel } from './word-vectors.js'

// A miniature of the wink file: {dimensions, words, vectors: {word: [...dims, l2norm, index]}}.
const dir = mkdtempSync(join(tmpdir(), 'word-vectors-'))
const source = join(dir, 'vectors.json')
writeFileSync(
  source,
  JSON.stringify({
    dimensions: 3,
    words: ['the', 'malware', ',', 'ransomware', 'x', 'phishing'],
    vectors: {
      the: [0.1, 0.1, 0.1, 0.17, 0],
      malware: [1, 0.5, -0.25, 1.15, 1],
      ',': [0, 0, 1, 1, 2],
      ransomware: [0.9, 0.6, -0.2, 1.1, 3],
      x: [0, 1, 0, 1, 4],
      phishing: [-0.5, 1, 0.5, 1.22, 5],
    },
  }),
)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('word vectors', () => {
  it('keeps only words the tokenizer can produce, in rank order', () => {
    const packed = loadWordVectorsSync({ path: source, cacheDir: join(dir, 'cache-a') })
    expect(vocabularySize(packed.vocabulary)).toBe(4)
    expect(
      ['the', 'malware', 'ransomware', 'phishing'].map((w) => vocabularyRank(packed.vocabulary, w)),
    ).toEqual([0, 1, 2, 3])
    expect(vocabularyRank(packed.vocabulary, ',')).toBe(-1)
    // SIF weights grow with rank: frequent words weigh least.
    expect(packed.weights[0]).toBeLessThan(packed.weights[3] as number)
  })

  it('embeds the same from the converted cache as from the source', () => {
    const cacheDir = join(dir, 'cache-b')
    const first = new WordVectorModel(loadWordVectorsSync({ path: source, cacheDir }))
    expect(readdirSync(cacheDir)).toHaveLength(1)
    const cached = new WordVectorModel(loadWordVectorsSync({ path: source, cacheDir }))
    const text = 'Malware and ransomware, then phishing'
    expect(Array.from(cached.embedOne(text))).toEqual(Array.from(first.embedOne(text)))
    expect(cached.vocabularySize).toBe(4)
  })

  it('points similar words the same way and unknown words nowhere', () => {
    const model = new WordVectorModel(loadWordVectorsSync({ path: source, cacheDir: join(dir, 'cache-c') }))
    const cosine = (a: Float32Array, b: Float32Array) => {
      let dot = 0
      let na = 0
      let nb = 0
      a.forEach((x, i) => {
        dot += x * (b[i] as number)
        na += x * x
        nb += (b[i] as number) ** 2
      })
      return dot / Math.sqrt(na * nb)
    }
    const malware = model.embedOne('malware')
    expect(cosine(malware, model.embedOne('ransomware'))).toBeGreaterThan(0.95)
    expect(cosine(malware, model.embedOne('phishing'))).toBeLessThan(0.5)
    expect(Array.from(model.embedOne('zzzz unknown'))).toEqual([0, 0, 0])
  })

  it('converts in a child process that writes the cache (the built module), or here when it cannot', async () => {
    const text = 'Malware and ransomware, then phishing'
    const here = new WordVectorModel(loadWordVectorsSync({ path: source, cacheDir: join(dir, 'cache-d') }))
    // This module is TypeScript under the test runner: the child cannot import it, so this converts here.
    const fallback = loadWordVectorsSync({ path: source, cacheDir: join(dir, 'cache-e') }, true)
    expect(Array.from(new WordVectorModel(fallback).embedOne(text))).toEqual(Array.from(here.embedOne(text)))
    // The built module (what the server runs) converts in a child: the cache is there before it is read.
    const built = (await import(
      new URL('../../../dist/seed/embeddings/word-vectors.js', import.meta.url).href
    )) as typeof import('./word-vectors.js')
    const cacheDir = join(dir, 'cache-f')
    expect(built.convertInChildProcess({ path: source, cacheDir })).toBe(true)
    expect(readdirSync(cacheDir)).toEqual(['glove-100d-v1.bin'])
    const viaChild = new built.WordVectorModel(built.loadWordVectorsSync({ path: source, cacheDir }, true))
    expect(Array.from(viaChild.embedOne(text))).toEqual(Array.from(here.embedOne(text)))
  })

  it('reads the codes of words past the resident ones from the cache file, embedding exactly the same', () => {
    const cacheDir = join(dir, 'cache-g')
    const resident = loadWordVectorsSync({ path: source, cacheDir })
    expect(resident.cold).toBeNull()
    const split = loadWordVectorsSync({ path: source, cacheDir, hotWords: 2 })
    expect(split.codes.length).toBe(2 * split.dims)
    expect(split.cold).not.toBeNull()
    const all = new WordVectorModel(resident)
    const some = new WordVectorModel(split)
    for (const text of ['Malware and ransomware, then phishing', 'phishing phishing ransomware', 'the'])
      expect(Array.from(some.embedOne(text))).toEqual(Array.from(all.embedOne(text)))
    // Read again from its kept rows: the same.
    expect(Array.from(some.embedOne('phishing'))).toEqual(Array.from(all.embedOne('phishing')))
  })

  it('keeps the cold codes readable after the loader worker ends (the built module)', async () => {
    const built = (await import(
      new URL('../../../dist/seed/embeddings/word-vectors.js', import.meta.url).href
    )) as typeof import('./word-vectors.js')
    const cacheDir = join(dir, 'cache-h')
    const loaded = await built.loadWordVectors({ path: source, cacheDir, hotWords: 2 })
    expect(loaded.cold).not.toBeNull()
    await new Promise((r) => setTimeout(r, 100))
    const text = 'phishing and ransomware'
    const resident = new WordVectorModel(loadWordVectorsSync({ path: source, cacheDir }))
    expect(Array.from(new built.WordVectorModel(loaded).embedOne(text))).toEqual(
      Array.from(resident.embedOne(text)),
    )
  })
})
