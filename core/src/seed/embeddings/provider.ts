/**
 * Where seed search gets dense vectors from. Vectors are L2-normalised by the index, so a provider may
 * return any scale; a text with nothing to embed comes back as an all-zero vector and is left out.
 */
export interface EmbeddingProvider {
  /** Names the model for explanations and operators, e.g. `local:glove-100d`. */
  readonly id: string
  readonly dimensions: number
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>
  /** Present when embedding is cheap and in-process: the index then embeds inside the commit hook. */
  embedSync?(texts: readonly string[]): Float32Array[]
}

export type EmbeddingState = 'ready' | 'loading' | 'unavailable' | 'failed'

/** L2-normalises in place; returns false for a zero (or non-finite) vector. */
export function normalizeInPlace(v: Float32Array): boolean {
  let sum = 0
  for (let i = 0; i < v.length; i++) sum += (v[i] as number) * (v[i] as number)
  if (!(sum > 0) || !Number.isFinite(sum)) return false
  const inv = 1 / Math.sqrt(sum)
  for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) * inv
  return true
}

/**
 * The provider slot seed search reads. It starts empty (`unavailable`), may be `loading` while a local
 * model converts, and tells listeners when a provider arrives so the vector index can embed the graph.
 */
export class EmbeddingSlot {
  private current: EmbeddingProvider | null = null
  private stateValue: EmbeddingState = 'unavailable'
  private detailValue = 'no embedding provider is configured'
  private readonly listeners: ((provider: EmbeddingProvider | null) => void)[] = []

  get provider(): EmbeddingProvider | null {
    return this.current
  }

  get state(): EmbeddingState {
    return this.stateValue
  }

  /** Why there is no provider (for the 503 message and boundary notes). */
  get detail(): string {
    return this.detailValue
  }

  loading(detail: string): void {
    this.stateValue = 'loading'
    this.detailValue = detail
  }

  fail(detail: string): void {
    this.current = null
    this.stateValue = 'failed'
    this.detailValue = detail
    for (const l of this.listeners) l(null)
  }

  set(provider: EmbeddingProvider): void {
    this.current = provider
    this.stateValue = 'ready'
    this.detailValue = `embeddings from ${provider.id}`
    for (const l of this.listeners) l(provider)
  }

  onChange(listener: (provider: EmbeddingProvider | null) => void): void {
    this.listeners.push(listener)
  }
}
