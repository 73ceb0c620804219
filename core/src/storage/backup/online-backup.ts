import { Readable } from 'node:stream'
import { EngineError } from '../../errors.js'
import type { DurableStore } from '../durable-store.js'
import { backupArchive } from './backup-archive.js'
import type { BackupSource } from './backup-source.js'

/** A backup as the door streams it: the sequence it stands at (known before the first byte) and its bytes. */
export interface OnlineBackup {
  sequence: number
  backend: 'file' | 'postgres'
  stream: Readable
}

/**
 * One online backup at a time (a second one answers BACKUP_IN_PROGRESS): each holds descriptors to files
 * compaction would otherwise remove, and two would only compete for the same disk.
 */
export class BackupGate {
  private running = false

  async start(store: DurableStore | null, now: () => number): Promise<OnlineBackup> {
    if (store === null) {
      throw new EngineError('BACKUP_UNAVAILABLE', 'an ephemeral engine keeps nothing durable to back up')
    }
    if (this.running)
      throw new EngineError('BACKUP_IN_PROGRESS', 'a backup is already running; retry when it ends')
    // Taken before the capture: a PostgreSQL capture spools asynchronously, and a second request meanwhile
    // must be refused too. The file store's capture is synchronous, so its image is the request's moment.
    this.running = true
    let source: BackupSource
    try {
      source = await store.backupSource()
    } catch (error) {
      this.running = false
      throw error
    }
    const stream = Readable.from(backupArchive(source, now), { objectMode: false })
    // A dropped connection destroys the stream before the archive's own `finally` may have run.
    stream.once('close', () => {
      this.running = false
      source.release()
    })
    return { sequence: source.sequence, backend: source.backend, stream }
  }
}
