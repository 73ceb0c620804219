export type { ItemResult, ItemStatus, MergeData, WriteResponse } from './apply.js'
export type { Corpus } from './corpus.js'
export type { ParityReport } from './evidence-state.js'
export { fileJobId, hashKey } from './identity.js'
export { MERGED_IDS_KEY, REF_WORKSPACE_ID, REVISION_KEY } from './records.js'
export { httpReference, type ReferenceAnswer, type ReferenceClient } from './reference-client.js'
export { httpReferenceProbe, type ReferenceProbe } from './reference-probe.js'
export {
  CONSISTENCY_LEVELS,
  FileDescriptor,
  RefWriteRequest,
  ROLLBACK_TRIGGERS,
  type RollbackTrigger,
  WRITE_AUTHORITIES,
  WRITE_OPERATIONS,
  type WriteAuthority,
} from './request.js'
export type { StoredResponse } from './state.js'
export {
  type AuthorityRequest,
  type FileCommand,
  type RefFigures,
  type RefOptions,
  RefWrites,
  type WriteCall,
} from './writes.js'
