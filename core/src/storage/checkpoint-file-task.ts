import type { MessagePort } from 'node:worker_threads'
import { type CheckpointFileFacts, CheckpointFileWriter, type EncodedChunk } from './checkpoint-encoder.js'

/** What the engine posts to the worker for one checkpoint file: chunks in order, then the end or an abort. */
export type CheckpointMessage = { chunk: EncodedChunk } | { end: true } | { abort: true }

export interface CheckpointFileTask {
  port: MessagePort
  path: string
  header: string
}

/**
 * Worker task (run through the worker pool): writes one checkpoint file from the chunks posted on `port`,
 * encoding column lines, hashing and writing off the event loop. Each chunk is acknowledged once written,
 * so the engine keeps only a few in flight. Resolves with the file's facts after the fsync; on an abort or
 * an error the temp file is removed.
 */
export function writeCheckpointFile(task: CheckpointFileTask): Promise<CheckpointFileFacts | null> {
  const { port } = task
  return new Promise((resolve, reject) => {
    let writer: CheckpointFileWriter
    try {
      writer = new CheckpointFileWriter(task.path, task.header)
    } catch (error) {
      port.close()
      reject(error)
      return
    }
    let written = 0
    port.on('message', (message: CheckpointMessage) => {
      try {
        if ('chunk' in message) {
          writer.add(message.chunk)
          port.postMessage({ written: ++written })
          return
        }
        port.close()
        if ('abort' in message) {
          writer.abandon()
          resolve(null)
          return
        }
        resolve(writer.finish())
      } catch (error) {
        writer.abandon()
        port.postMessage({ failed: true })
        port.close()
        reject(error)
      }
    })
  })
}
