export {
  type EmbeddingProviderKind,
  embeddingProviderKind,
  localWordVectorsPath,
  startEmbeddings,
} from './embeddings.js'
export { default as seedPlugin, type SeedPluginOptions } from './plugin.js'
export { SeedCandidateSchema, SeedSearchBody, SeedSearchResponse } from './schemas.js'
