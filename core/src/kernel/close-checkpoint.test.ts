import { mkdtempSync, readdirSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openEngine } from '../runtime/index.js'

const images = (dir: string) =>
  readdirSync(join(dir, 'checkpoints')).map(
    (f) => [f, statSync(join(dir, 'checkpoints', f)).mtimeMs] as const,
  )

describe('the checkpoint on close', () => {
  it('is written when the log holds records past the last image, and skipped when it holds none', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'close-checkpoint-'))
    const open = () => openEngine({ storage: { mode: 'persistent', dir, requireFsync: false } })
    const engine = await open()
    await engine.transact('ws', (tx, store) => {
      tx.createNode([store.names.id('A')], new Map([[store.names.id('k'), 1]]))
    })
    await engine.close()
    const first = images(dir)
    expect(first).toHaveLength(1)

    // Reopened and closed without a write: the image on disk is the same file, untouched.
    await (await open()).close()
    expect(images(dir)).toEqual(first)

    // A write after reopening: close writes a newer image, and it holds the write.
    const again = await open()
    await again.transact('ws', (tx, store) => {
      tx.createNode([store.names.id('A')], new Map([[store.names.id('k'), 2]]))
    })
    await again.close()
    expect(images(dir).map(([f]) => f)).not.toEqual(first.map(([f]) => f))
    const last = await open()
    try {
      const r = await last.read('MATCH (n:A) RETURN n.k AS k ORDER BY k', {}, { workspaceId: 'ws' })
      expect(r.data?.rows).toEqual([[1], [2]])
    } finally {
      await last.close()
    }
  })
})
