import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { batchedDestination } from './log-destination.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})
function file() {
  const dir = mkdtempSync(join(tmpdir(), 'log-destination-'))
  dirs.push(dir)
  const path = join(dir, 'out.log')
  return { path, fd: openSync(path, 'a') }
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('batched log destination', () => {
  it('writes the lines of one window together, after the window, in order', async () => {
    const { path, fd } = file()
    const destination = batchedDestination(fd, 400)
    for (let i = 0; i < 20; i++) destination.write(`{"n":${i}}\n`)
    // Nothing is written per line: the lines wait for the window.
    await sleep(50)
    expect(readFileSync(path, 'utf8')).toBe('')
    await sleep(600)
    const lines = readFileSync(path, 'utf8').trim().split('\n')
    expect(lines.map((line) => JSON.parse(line).n)).toEqual([...Array(20).keys()])
    // A later line starts a new window.
    destination.write('{"n":20}\n')
    await sleep(600)
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(21)
    closeSync(fd)
  })

  it('writes at once when a window holds more than the buffer bound', async () => {
    const { path, fd } = file()
    const destination = batchedDestination(fd, 60_000)
    const line = `{"pad":"${'x'.repeat(1000)}"}\n`
    for (let i = 0; i < 20; i++) destination.write(line)
    await sleep(100)
    // 20 kB is past the 8 kB bound: written without waiting for the (one minute) window.
    expect(readFileSync(path, 'utf8').length).toBeGreaterThanOrEqual(8 * 1024)
    closeSync(fd)
  })
})
