import { describe, expect, it, vi } from 'vitest'

describe('transaction ids', () => {
  it('are distinct within a process and keep the tx-- shape', async () => {
    const { nextTxId } = await import('./tx-ids.js')
    const ids = Array.from({ length: 10_000 }, () => nextTxId())
    expect(new Set(ids).size).toBe(ids.length)
    for (const id of ids.slice(0, 50)) expect(id).toMatch(/^tx--[0-9a-f]{16}-[0-9a-z]+$/)
  })

  it('differ between processes (a fresh module draws its own prefix, its counter restarting)', async () => {
    const first = (await import('./tx-ids.js')).nextTxId()
    vi.resetModules()
    const second = (await import('./tx-ids.js')).nextTxId()
    const prefix = (id: string) => id.slice(0, id.lastIndexOf('-'))
    expect(prefix(second)).not.toBe(prefix(first))
    expect(second.endsWith('-1')).toBe(true)
  })
})
