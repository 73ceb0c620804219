import { existsSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'
import { EngineError } from '../errors.js'
import { type CsvBatch, type CsvFormat, parseGroup } from './csv-source.js'

/** Batches the parsing thread may run ahead of the importer: enough to overlap, bounded in memory. */
const AHEAD = 4

type ThreadMessage =
  | { batch: CsvBatch }
  | { groupEnd: true }
  | { error: { code: string | undefined; message: string } }

/**
 * The built `csv-source.js` a parsing thread imports. Under a TypeScript test runner this module is the
 * source file and the thread imports the build's; null when there is no build (the groups are then parsed
 * on this thread).
 */
function builtSource(): string | null {
  const here = fileURLToPath(import.meta.url)
  const built = here.endsWith('.ts')
    ? here.replace(/\/src\/import\/csv-thread\.ts$/, '/dist/import/csv-source.js')
    : here.replace(/csv-thread\.js$/, 'csv-source.js')
  return existsSync(built) ? pathToFileURL(built).href : null
}

// The thread parses the groups one after another with `parseGroup` and posts each packed batch (its offset
// arrays moved, not copied), then a mark at each group's end; never more than AHEAD batches beyond what the
// importer has taken, so it runs ahead across group ends too but holds little. The code reads its modules
// without `require`, so it runs as a script or as a module (a host started with --input-type=module passes
// that on to its threads).
const THREAD_CODE = `const { workerData, parentPort } = process.getBuiltinModule('node:worker_threads')
let credit = workerData.ahead
let wake = null
parentPort.on('message', () => { credit++; const w = wake; wake = null; w?.() })
import(workerData.moduleUrl).then(async (m) => {
  try {
    for (const files of workerData.groups) {
      for await (const batch of m.parseGroup(files, workerData.format)) {
        while (credit === 0) await new Promise((resolve) => (wake = resolve))
        credit--
        parentPort.postMessage({ batch }, [batch.rows.starts.buffer, batch.rows.ends.buffer, batch.rows.rowEnds.buffer])
      }
      parentPort.postMessage({ groupEnd: true })
    }
  } catch (e) {
    parentPort.postMessage({ error: { code: e.code, message: e.message } })
  }
  parentPort.close()
})`

/**
 * The records of an import's input groups, each group as `parseGroup` gives them, read group by group in
 * the order given. When the build is there one thread of its own parses them all, so the importer converts
 * one batch while the next is parsed; errors keep their code and text.
 */
export class GroupReader {
  private readonly worker: Worker | null
  private readonly inbox: ThreadMessage[] = []
  private failure: Error | null = null
  private wake: (() => void) | null = null
  private next = 0

  constructor(
    private readonly groups: readonly (readonly string[])[],
    private readonly format: CsvFormat,
    /** Parse on a thread of its own when the build is there (tests turn it off to parse here). */
    thread = true,
  ) {
    const moduleUrl = thread ? builtSource() : null
    this.worker =
      moduleUrl === null
        ? null
        : new Worker(THREAD_CODE, {
            eval: true,
            workerData: { moduleUrl, groups: groups.map((g) => [...g]), format, ahead: AHEAD },
          })
    this.worker?.on('message', (message: ThreadMessage) => {
      this.inbox.push(message)
      this.notify()
    })
    this.worker?.on('error', (error) => this.fail(error))
    // Node delivers a thread's messages before its exit: a reader still waiting after it would wait forever.
    this.worker?.on('exit', (code) =>
      this.fail(new Error(`the CSV parsing thread ended (code ${code}) before its input was read`)),
    )
  }

  private notify(): void {
    const w = this.wake
    this.wake = null
    w?.()
  }

  private fail(error: Error): void {
    this.failure ??= error
    this.notify()
  }

  /** The batches of the next group (groups are read in the order the reader was given them). */
  async *group(): AsyncGenerator<CsvBatch> {
    const files = this.groups[this.next++]
    if (files === undefined) throw new Error('every input group has been read')
    if (this.worker === null) {
      yield* parseGroup(files, this.format)
      return
    }
    for (;;) {
      const message = this.inbox.shift()
      if (message === undefined) {
        if (this.failure !== null) throw this.failure
        await new Promise<void>((resolve) => (this.wake = resolve))
        continue
      }
      if ('groupEnd' in message) return
      if ('error' in message) {
        const { code, message: text } = message.error
        throw code === 'IMPORT_INPUT_INVALID' ? new EngineError(code, text) : new Error(text)
      }
      this.worker.postMessage(1)
      yield message.batch
    }
  }

  /** Ends the parsing thread (also when the import stopped early). */
  async close(): Promise<void> {
    this.failure ??= new Error('the group reader is closed')
    await this.worker?.terminate()
  }
}
