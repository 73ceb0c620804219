import { describe, expect, it } from 'vitest'
import { VisibilityGate } from './visibility-gate.js'

const settled = async (promise: Promise<unknown>) => {
  let done = false
  promise.then(
    () => {
      done = true
    },
    () => {
      done = true
    },
  )
  await new Promise((resolve) => setImmediate(resolve))
  return done
}

describe('visibility gate', () => {
  it('lets a writer straight through, and holds a reader until the log is durable up to the last published commit', async () => {
    const gate = new VisibilityGate()
    expect(gate.enterWrite()).toBeUndefined()
    gate.published(3)
    gate.published(5)
    const reader = gate.enterRead()
    gate.durable(4)
    expect(await settled(reader)).toBe(false)
    gate.durable(5)
    expect(await settled(reader)).toBe(true)
    // A writer arriving while the reader reads waits for it.
    const writer = gate.enterWrite()
    expect(writer).toBeInstanceOf(Promise)
    gate.exitRead()
    expect(await settled(writer!)).toBe(true)
  })

  it('after a log failure refuses writers, holds readers until the durable state is reloaded, then lets them read', async () => {
    const gate = new VisibilityGate()
    gate.published(1)
    gate.durable(1)
    gate.published(2)
    const reader = gate.enterRead()
    gate.logFailed(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }))
    expect(gate.failed).toMatchObject({ code: 'DURABILITY_FAILED' })
    expect(() => gate.enterWrite()).toThrow(/writes are suspended/)
    // The durable sequence is 1: commit 2 must never be read, so the reader waits for the reload.
    gate.durable(2)
    expect(await settled(reader)).toBe(false)
    gate.reloaded(1)
    expect(await settled(reader)).toBe(true)
    gate.exitRead()
    // Writes stay refused until the log resumes.
    expect(() => gate.enterWrite()).toThrow(/DURABILITY|suspended/)
    gate.resumed()
    expect(gate.failed).toBeNull()
    expect(gate.enterWrite()).toBeUndefined()
  })

  it('refuses readers while the durable state cannot be read back, and names a full disk', async () => {
    const gate = new VisibilityGate()
    gate.published(1)
    gate.logFailed(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }))
    expect(gate.failed?.message).toMatch(/storage is full \(ENOSPC/)
    const reader = gate.enterRead()
    gate.readsUnavailable(new Error('EIO: i/o error, open'))
    await expect(reader).rejects.toMatchObject({ code: 'STORAGE_UNAVAILABLE' })
    await expect(gate.enterRead()).rejects.toMatchObject({ code: 'STORAGE_UNAVAILABLE' })
    gate.reloaded(0)
    expect(await settled(gate.enterRead())).toBe(true)
  })
})
