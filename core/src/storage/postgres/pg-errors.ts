import { EngineError } from '../../errors.js'

/** Error codes of the PostgreSQL store and of read followers. */
export const PgStoreErrors = {
  ownedElsewhere: () =>
    new EngineError(
      'STORAGE_OWNED_BY_ANOTHER_PRIMARY',
      'another primary holds the PostgreSQL store (its ownership lock is taken); start this server as a follower (SERVICE_STORAGE_ROLE=follower) or stop the other primary',
    ),
  fenced: (reason: string) =>
    new EngineError(
      'STORAGE_FENCED',
      `this server no longer owns the PostgreSQL store and refuses writes: ${reason}`,
    ),
  readOnlyFollower: (primaryUrl: string | null) =>
    new EngineError(
      'STORAGE_READ_ONLY_FOLLOWER',
      primaryUrl === null
        ? 'this server is a read follower; send writes to the primary'
        : `this server is a read follower; send writes to the primary at ${primaryUrl}`,
    ),
  logFailed: (cause: Error) =>
    new EngineError(
      'DURABILITY_FAILED',
      `PostgreSQL did not commit the write-ahead log rows, the write was not acknowledged: ${cause.message}`,
      { cause },
    ),
  unavailableAfterFailure: (cause: Error) =>
    new EngineError(
      'DURABILITY_FAILED',
      `the PostgreSQL write-ahead log is unavailable after an earlier failure: ${cause.message}`,
    ),
  recoveryFailed: (message: string) => new EngineError('STORAGE_RECOVERY_FAILED', message),
}
