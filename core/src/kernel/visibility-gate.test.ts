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

  it('fails only when the log fails with published commits not yet durable', async () => {
    const gate = new VisibilityGate()
    gate.published(1)
    gate.durable(1)
    gate.logFailed(new Error('EIO'))
    expect(gate.failed).toBeNull()
    gate.published(2)
    const reader = gate.enterRead()
    gate.logFailed(new Error('EIO'))
    expect(gate.failed).toMatchObject({ code: 'DURABILITY_FAILED' })
    await expect(reader).rejects.toMatchObject({ code: 'DURABILITY_FAILED' })
  })
})
