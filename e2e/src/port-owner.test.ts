import { createServer } from 'node:net'
import { describe, expect, it } from 'vitest'
import { holdsPort } from './port-owner.js'

describe.runIf(process.platform === 'linux')('port owner', () => {
  it('tells the process that listens on a port from one that does not', async () => {
    const server = createServer()
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const port = (server.address() as { port: number }).port
    try {
      expect(holdsPort(process.pid, port)).toBe(true)
      expect(holdsPort(process.ppid, port)).toBe(false)
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
    expect(holdsPort(process.pid, port)).toBe(false)
  })
})
