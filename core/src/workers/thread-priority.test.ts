import { existsSync } from 'node:fs'
import { getPriority } from 'node:os'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import { describe, expect, it } from 'vitest'

// The built module (the unit project runs after the build), loaded in a thread of its own.
const built = fileURLToPath(new URL('../../dist/workers/thread-priority.js', import.meta.url))

describe('worker thread priority', () => {
  it.runIf(process.platform === 'linux')('lowers the worker thread only, not the event loop', async () => {
    expect(existsSync(built)).toBe(true)
    const before = getPriority()
    const worker = new Worker(
      `import(${JSON.stringify(built)}).then(({ lowerThreadPriority }) => {
         const { getPriority } = require('node:os')
         lowerThreadPriority()
         require('node:worker_threads').parentPort.postMessage(getPriority())
       })`,
      { eval: true },
    )
    const inWorker = await new Promise((resolve, reject) => {
      worker.once('message', resolve)
      worker.once('error', reject)
    })
    await worker.terminate()
    expect(inWorker).toBe(Math.max(before, 10))
    expect(getPriority()).toBe(before)
  })
})
