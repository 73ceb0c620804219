// The WAL's I/O thread: seals, writes and fdatasyncs the batches the writer sends, in order; the batches that
// queued while it was busy go together in one write and one fdatasync.
import { parentPort, receiveMessageOnPort } from 'node:worker_threads'
import { WalBatchWriter, type WalIoJob } from './wal-io-task.js'

const port = parentPort
const writer = new WalBatchWriter()
port?.on('message', (first: WalIoJob) => {
  const jobs = [first]
  for (let next = receiveMessageOnPort(port); next !== undefined; next = receiveMessageOnPort(port))
    jobs.push(next.message as WalIoJob)
  port.postMessage(writer.write(jobs))
})
