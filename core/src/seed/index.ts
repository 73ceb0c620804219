export { BM25_K1, Bm25Index, FIELD_B, FIELD_WEIGHT, FIELDS, lexicalScore } from './bm25-index.js'
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
  COMMON_SHARE,
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
export {
  analyze,
  objectiveTerms,
  QUESTION_WORDS,
  STOPWORDS,
  searchTerms,
  stem,
  tokenize,
} from './tokenizer.js'
export { VectorIndex } from './vector-index.js'
