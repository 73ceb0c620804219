import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import type { WalIoJob, WalIoReply } from './wal-io-task.js'

/**
 * The built worker entry (`dist/storage/wal-io-worker.js`); under a TypeScript test runner this module is the
 * source file and the entry is the build's. Null without a build: the writer then does its I/O in-process.
 */
function workerEntry(): string | null {
  const here = fileURLToPath(import.meta.url)
  const built = here.endsWith('.ts')
    ? here.replace(/\/src\/storage\/wal-io-thread\.ts$/, '/dist/storage/wal-io-worker.js')
    : here.replace(/wal-io-thread\.js$/, 'wal-io-worker.js')
  return existsSync(built) ? built : null
}

/**
 * A thread of the WAL's own that seals (sha256), writes and fdatasyncs one batch at a time, so the event loop
 * only builds each record's JSON: at tens of thousands of durable writes a second, the digest, the line
 * copies and the write were a fifth of the event loop's work. Its own thread rather than the engine's worker
 * pool: a batch must never queue behind a checkpoint's encoding, and that pool runs at a lower priority.
 * Being in the same process, it writes to the writer's descriptor; the writer sends the next batch only
 * after this one answered, so the two never use the file at once.
 */
export class WalIoThread {
  private waiting: ((reply: WalIoReply) => void) | null = null
  private stopped: string | null = null

  private constructor(private readonly worker: Worker) {
    worker.unref()
    worker.on('message', (reply: WalIoReply) => this.answer(reply))
    worker.on('error', (error) => this.stop(`the log's I/O thread failed: ${error.message}`))
    worker.on('exit', (code) => this.stop(`the log's I/O thread exited (code ${code})`))
  }

  /** A running thread, or null when there is no built entry to run. */
  static start(): WalIoThread | null {
    const entry = workerEntry()
    return entry === null ? null : new WalIoThread(new Worker(entry))
  }

  /** Sends one batch; `done` is called once with its answer (a failure if the thread is gone). */
  run(job: WalIoJob, done: (reply: WalIoReply) => void): void {
    if (this.stopped !== null) {
      done({ ok: false, message: this.stopped })
      return
    }
    this.waiting = done
    // Held while a batch is out, so the process waits for its answer; idle, it keeps nothing alive.
    this.worker.ref()
    this.worker.postMessage(job)
  }

  async close(): Promise<void> {
    this.stopped ??= 'the log is closed'
    await this.worker.terminate()
  }

  private answer(reply: WalIoReply): void {
    const done = this.waiting
    this.waiting = null
    this.worker.unref()
    done?.(reply)
  }

  private stop(reason: string): void {
    this.stopped ??= reason
    this.answer({ ok: false, message: reason })
  }
}
