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
 * A thread of the WAL's own that seals (sha256), writes and fdatasyncs batches, so the event loop only builds
 * each record's JSON and never waits for the disk: at tens of thousands of durable writes a second, the
 * digest, the line copies and the write were a fifth of the event loop's work, and the event loop idled a
 * third of the time waiting for each batch's fdatasync. Its own thread rather than the engine's worker pool:
 * a batch must never queue behind a checkpoint's encoding, and that pool runs at a lower priority. Being in
 * the same process, it writes to the writer's descriptor; the writer changes segments only when no batch is
 * out, so the two never use a file at once.
 */
export class WalIoThread {
  /** Batches sent and not answered yet: the thread is held (keeps the process alive) only meanwhile. */
  private out = 0
  private stopped: string | null = null

  private constructor(
    private readonly worker: Worker,
    private readonly answered: (reply: WalIoReply) => void,
  ) {
    worker.unref()
    worker.on('message', (reply: WalIoReply) => this.answer(reply))
    worker.on('error', (error) => this.stop(`the log's I/O thread failed: ${error.message}`))
    worker.on('exit', (code) => this.stop(`the log's I/O thread exited (code ${code})`))
  }

  /** A running thread answering through `answered`, or null when there is no built entry to run. */
  static start(answered: (reply: WalIoReply) => void): WalIoThread | null {
    const entry = workerEntry()
    return entry === null ? null : new WalIoThread(new Worker(entry), answered)
  }

  /** Sends one batch; its answer comes, in order, through `answered` (a failure if the thread is gone). */
  post(job: WalIoJob): void {
    if (this.stopped !== null) {
      const reason = this.stopped
      queueMicrotask(() => this.answered({ ok: false, batches: 1, message: reason }))
      return
    }
    if (this.out++ === 0) this.worker.ref()
    this.worker.postMessage(job)
  }

  async close(): Promise<void> {
    this.stopped ??= 'the log is closed'
    await this.worker.terminate()
  }

  private answer(reply: WalIoReply): void {
    this.out -= reply.batches
    if (this.out <= 0) {
      this.out = 0
      this.worker.unref()
    }
    this.answered(reply)
  }

  /** The thread is gone: every batch still out fails. */
  private stop(reason: string): void {
    if (this.stopped !== null && this.out === 0) return
    this.stopped ??= reason
    if (this.out > 0) this.answer({ ok: false, batches: this.out, message: reason })
  }
}
