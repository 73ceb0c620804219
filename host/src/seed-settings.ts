import { httpEmbeddingOptionsFromEnv } from '@service/core/seed'
import { type EmbeddingProviderKind, embeddingProviderKind } from '@service/plugin-seed'
import type { EnvReader } from './env-reader.js'

export interface SeedSettings {
  embeddingProvider: EmbeddingProviderKind
  /** The `http` provider's endpoint, or null. */
  embeddingUrl: string | null
}

/**
 * SERVICE_SEED_EMBEDDING_*: checked at start with the other settings, by the same parsers the seed plugin uses
 * when it starts the provider, so a bad value is reported with everything else instead of failing the plugin.
 */
export function readSeedSettings(r: EnvReader, env: NodeJS.ProcessEnv): SeedSettings {
  let embeddingProvider: EmbeddingProviderKind = 'local'
  let embeddingUrl: string | null = null
  try {
    embeddingProvider = embeddingProviderKind(env)
    embeddingUrl = httpEmbeddingOptionsFromEnv(env)?.url ?? null
  } catch (error) {
    r.problem((error as Error).message)
  }
  if (embeddingProvider === 'http' && embeddingUrl === null)
    r.problem('SERVICE_SEED_EMBEDDING_PROVIDER=http needs SERVICE_SEED_EMBEDDING_URL')
  return { embeddingProvider, embeddingUrl }
}
