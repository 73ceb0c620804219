import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { CursorStore, CursorStoreError } from './cursor-store.js'

const tempDir = () => join(mkdtempSync(join(tmpdir(), 'taxii-cursors-')), 'state', 'ingest')

describe('CursorStore', () => {
  it('starts empty and creates its directory on the first save', async () => {
    const store = new CursorStore(tempDir())
    expect(await store.get('c1')).toBeUndefined()
    await store.save('c1', '2024-01-01T00:00:00.000000Z')
    expect(JSON.parse(readFileSync(store.file, 'utf8'))).toEqual({
      cursors: { c1: '2024-01-01T00:00:00.000000Z' },
    })
    expect(readdirSync(store.dir)).toEqual(['cursors.json'])
  })

  it('keeps other collections when saving one', async () => {
    const dir = tempDir()
    await new CursorStore(dir).save('a', '1')
    await new CursorStore(dir).save('b', '2')
    await new CursorStore(dir).save('a', '3')
    expect(await new CursorStore(dir).load()).toEqual({ a: '3', b: '2' })
  })

  it('refuses a damaged file rather than silently starting over', async () => {
    const store = new CursorStore(tempDir())
    await store.save('a', '1')
    writeFileSync(store.file, '{"cursors":')
    await expect(store.load()).rejects.toBeInstanceOf(CursorStoreError)
    writeFileSync(store.file, '{"cursors":{"a":1}}')
    await expect(store.load()).rejects.toThrow(/not a string/)
  })
})
