// The WAL's I/O thread: seals, writes and fdatasyncs batches the writer sends, one at a time, in order.
import { parentPort } from 'node:worker_threads'
import { type WalIoJob, writeWalBatch } from './wal-io-task.js'

parentPort?.on('message', (job: WalIoJob) => {
  parentPort?.postMessage(writeWalBatch(job))
})
