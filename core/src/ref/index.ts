export type { ItemResult, ItemStatus, MergeData, WriteResponse } from './apply.js'
export { maxAttemptsWithin, nominalDelay, type RetryPolicy } from './backoff.js'
export type { BatchEntryAnswer } from './batch-writes.js'
export type { Corpus } from './corpus.js'
export type { ParityReport } from './evidence-state.js'
export { fileJobId, hashKey } from './identity.js'
export type { ProjectionAttempts } from './projector.js'
export { DEFAULT_RETENTION, type RetentionWindow } from './receipt-retention.js'
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
export type { WriteCall } from './write-admission.js'
export type { RefOptions } from './write-options.js'
export { type AuthorityRequest, type FileCommand, type RefFigures, RefWrites } from './writes.js'
