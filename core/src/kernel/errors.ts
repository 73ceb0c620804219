import { EngineError } from '../errors.js'

/** The kernel's own error codes. */
export const KernelErrors = {
  storageDirRequired: () =>
    new EngineError('STORAGE_DIR_REQUIRED', 'persistent storage needs a directory', 'invalid'),
  closed: () => new EngineError('ENGINE_CLOSED', 'the engine is closed', 'unavailable'),
  durabilityFailed: (error: Error) =>
    new EngineError(
      'DURABILITY_FAILED',
      `the write could not be made durable: ${error.message}`,
      'unavailable',
    ),
  snapshotNotFound: (snapshotId: string, workspaceId: string) =>
    new EngineError(
      'SNAPSHOT_NOT_FOUND',
      `no snapshot ${snapshotId} of workspace ${workspaceId} in the retained history`,
      'not_found',
    ),
}
