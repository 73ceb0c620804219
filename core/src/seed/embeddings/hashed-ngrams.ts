import { tokenize } from '../tokenizer.js'
import type { EmbeddingProvider } from './provider.js'

/**
 * A tiny deterministic embedding: character 3-grams of each token (with word boundaries) hashed into
 * `dims` signed buckets. It captures spelling overlap only, not meaning; it exists so tests and the test
 * embedding server compute real vectors without a model.
 */
export function hashedNgramVector(text: string, dims = 64): Float32Array {
  const v = new Float32Array(dims)
  for (const token of tokenize(text)) {
    const t = `<${token}>`
    for (let i = 0; i + 3 <= t.length; i++) {
      let h = 2166136261
      for (let j = i; j < i + 3; j++) h = Math.imul(h ^ t.charCodeAt(j), 16777619)
      const bucket = (h >>> 1) % dims
      v[bucket] = (v[bucket] as number) + (h & 1 ? 1 : -1)
    }
  }
  return v
}

export class HashedNgramProvider implements EmbeddingProvider {
  readonly id: string
  constructor(readonly dimensions = 64) {
    this.id = `local:hashed-3gram-${dimensions}`
  }
  embedSync(texts: readonly string[]): Float32Array[] {
    return texts.map((t) => hashedNgramVector(t, this.dimensions))
  }
  embed(texts: readonly string[]): Promise<Float32Array[]> {
    return Promise.resolve(this.embedSync(texts))
  }
}
