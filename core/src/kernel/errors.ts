import { EngineError } from '../errors.js'
import { storageTrouble } from '../storage/storage-trouble.js'

/** The kernel's own error codes. */
export const KernelErrors = {
  storageDirRequired: () => new EngineError('STORAGE_DIR_REQUIRED', 'persistent storage needs a directory'),
  closed: () => new EngineError('ENGINE_CLOSED', 'the engine is closed'),
  durabilityFailed: (error: Error) =>
    new EngineError('DURABILITY_FAILED', `the write could not be made durable: ${error.message}`),
  /** After a log failure; ENOSPC is named, as an operator acts differently on a full disk. */
  writesSuspended: (cause: Error) =>
    new EngineError(
      'DURABILITY_FAILED',
      `${storageTrouble(cause)}; writes are suspended and resume by themselves once the storage answers again (reads go on)`,
      { cause },
    ),
  readsUnavailable: (cause: Error) =>
    new EngineError(
      'STORAGE_UNAVAILABLE',
      `${storageTrouble(cause)} and the durable state cannot be read back yet; retry shortly`,
      { cause },
    ),
  writeOutlivedReload: () =>
    new EngineError(
      'DURABILITY_FAILED',
      'the write began before a storage failure and was not applied; retry it with the same idempotency key',
    ),
  snapshotNotFound: (snapshotId: string, workspaceId: string) =>
    new EngineError(
      'SNAPSHOT_NOT_FOUND',
      `no snapshot ${snapshotId} of workspace ${workspaceId} in the retained history`,
    ),
}
