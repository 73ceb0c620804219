export { DEFAULT_WORKSPACE_ID, GraphCatalog } from './catalog.js'
export {
  type CommitOp,
  type CommitRecord,
  decodeValue,
  type EncodedScalar,
  type EncodedValue,
  encodeValue,
} from './commit.js'
export { type IndexKey, indexKey } from './indexes.js'
export { GraphStore } from './store.js'
export { Transaction } from './transaction.js'
export {
  type GraphReader,
  Interner,
  type NodeRecord,
  type PropertyValue,
  type RelationshipRecord,
  type ScalarProperty,
} from './types.js'
