export { BM25_B, BM25_K1, Bm25Index, lexicalScore } from './bm25-index.js'
export { HashedNgramProvider, hashedNgramVector } from './embeddings/hashed-ngrams.js'
export {
  type HttpEmbeddingOptions,
  HttpEmbeddingProvider,
  httpEmbeddingOptionsFromEnv,
} from './embeddings/http.js'
export { type EmbeddingProvider, EmbeddingSlot, type EmbeddingState } from './embeddings/provider.js'
export {
  loadWordVectors,
  type PackedWordVectors,
  WordVectorModel,
  type WordVectorSource,
} from './embeddings/word-vectors.js'
export { degreeSignal, fuse, HYBRID_DENSE_SHARE, WEIGHTS } from './fusion.js'
export {
  DOMAIN_PROFILES,
  type DomainProfile,
  GATED_PROFILES,
  type ParsedSeedRequest,
  parseSeedRequest,
  RETRIEVAL_MODES,
  type RetrievalMode,
  type SeedRequest,
} from './rules.js'
export {
  type SearchCallOptions,
  type SeedCandidate,
  SeedSearch,
  type SeedSearchOptions,
  type SeedSearchResult,
} from './search.js'
export { objectiveTerms, STOPWORDS, tokenize } from './tokenizer.js'
export { VectorIndex } from './vector-index.js'
