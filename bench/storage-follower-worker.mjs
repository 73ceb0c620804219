// Worker thread of `pnpm bench storage`: a read follower on its own thread (as on its own machine), which
// answers each sequence the primary sends once it has applied it.
import { parentPort, workerData } from 'node:worker_threads'
import { openEngine } from '@service/core'

const follower = await openEngine({ storage: workerData.storage })
parentPort.on('message', async (message) => {
  if (message === 'close') {
    await follower.close()
    parentPort.postMessage({ closed: true })
    return
  }
  const applied = await follower.waitForSequence(message.seq, 10_000)
  parentPort.postMessage({ id: message.id, applied })
})
parentPort.postMessage({ ready: true })
