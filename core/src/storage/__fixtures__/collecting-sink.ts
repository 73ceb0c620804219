import type { ReplaySink } from '../durable-store.js'
import type { WalRecord } from '../wal-record.js'

/** A replay sink for storage tests: keeps every checkpoint line and WAL record it is handed, in order. */
export class CollectingSink implements ReplaySink {
  checkpoint: string[] = []
  records: WalRecord[] = []
  loadCheckpointLine(line: string) {
    this.checkpoint.push(line)
  }
  applyRecord(record: WalRecord) {
    this.records.push(record)
  }
}
