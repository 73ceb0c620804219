import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { openEngine } from '../runtime/index.js'
import { injectStorageFailure } from '../testing/index.js'
import type { Ledger } from './ledger.js'

/** A ledger that keeps a map of key → value, as receipts and outbox entries do. */
class MapLedger implements Ledger<{ key: string; value: number }> {
  readonly name = 'test-map'
  readonly map = new Map<string, number>()
  apply(entry: { key: string; value: number }): void {
    this.map.set(entry.key, entry.value)
  }
  *image() {
    for (const [key, value] of this.map) yield { key, value }
  }
  reset(): void {
    this.map.clear()
  }
}

const dirs: string[] = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-'))
  dirs.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

describe('ledgers beside the graph', () => {
  it('applies entries with the graph ops of the same transaction, and only when it commits', async () => {
    const ledger = new MapLedger()
    const engine = await openEngine({ ledgers: [ledger] })
    await engine.transact('w', (tx, store, l) => {
      tx.createNode([store.names.id('Memory')], new Map())
      l.write('test-map', { key: 'a', value: 1 })
      expect(ledger.map.has('a')).toBe(false) // not before publish
    })
    expect(ledger.map.get('a')).toBe(1)
    await expect(
      engine.transact('w', (_tx, _store, l) => {
        l.write('test-map', { key: 'b', value: 2 })
        throw new Error('abort')
      }),
    ).rejects.toThrow('abort')
    expect(ledger.map.has('b')).toBe(false)
    expect(() => engine.transact('w', (_tx, _store, l) => l.write('nope', {}))).rejects.toThrow(
      /unknown ledger/,
    )
    await engine.close()
  })

  it('survives restart through the WAL alone and through a checkpoint, ledger-only commits included', async () => {
    const dir = tempDir()
    const first = new MapLedger()
    // No checkpoint before close on the first open: the second open replays the WAL alone.
    let engine = await openEngine({
      storage: { mode: 'persistent', dir, checkpointEveryBytes: 1e12 },
      ledgers: [first],
    })
    await engine.transact('w', (tx, store, l) => {
      tx.createNode([store.names.id('Memory')], new Map())
      l.write('test-map', { key: 'a', value: 1 })
    })
    await engine.transact('w', (_tx, _store, l) => l.write('test-map', { key: 'b', value: 2 }))
    const seq = engine.currentSequence()
    // A copy taken while it runs (lock file left out) is what a crash leaves: a WAL and no checkpoint.
    const crashed = tempDir()
    cpSync(dir, crashed, { recursive: true, filter: (path) => !path.endsWith('.lock') })
    await engine.close()

    const second = new MapLedger()
    engine = await openEngine({ storage: { mode: 'persistent', dir: crashed }, ledgers: [second] })
    expect(engine.recoveryFacts().recovery_path).toBe('full_replay')
    expect([...second.map]).toEqual([
      ['a', 1],
      ['b', 2],
    ])
    expect(engine.currentSequence()).toBe(seq)
    await engine.transact('w', (_tx, _store, l) => l.write('test-map', { key: 'a', value: 3 }))
    await engine.close()

    const third = new MapLedger()
    engine = await openEngine({ storage: { mode: 'persistent', dir: crashed }, ledgers: [third] })
    expect(engine.recoveryFacts().recovery_path).toBe('checkpoint_and_bounded_replay')
    expect(third.map.get('a')).toBe(3)
    const nodes = await engine.read('MATCH (n:Memory) RETURN count(n) AS c', {}, { workspaceId: 'w' })
    expect(nodes.data?.rows).toEqual([[1]])
    await engine.close()
  })

  it('deferDurability: resolves once published; the next awaited commit makes it durable too (one ordered log)', async () => {
    const dir = tempDir()
    const ledger = new MapLedger()
    const engine = await openEngine({
      storage: { mode: 'persistent', dir, checkpointEveryBytes: 1e12 },
      ledgers: [ledger],
    })
    const deferred = await engine.transact(
      'w',
      (_tx, _store, l) => l.write('test-map', { key: 'a', value: 1 }),
      {
        deferDurability: true,
      },
    )
    expect(deferred.durable).toBeInstanceOf(Promise)
    expect(ledger.map.get('a')).toBe(1)
    const awaited = await engine.transact('w', (_tx, _store, l) =>
      l.write('test-map', { key: 'b', value: 2 }),
    )
    expect(awaited.durable).toBeUndefined()
    // Only the second commit was awaited; a crash right now keeps both.
    const crashed = tempDir()
    cpSync(dir, crashed, { recursive: true, filter: (path) => !path.endsWith('.lock') })
    await deferred.durable
    await engine.close()
    const recovered = new MapLedger()
    const reopened = await openEngine({ storage: { mode: 'persistent', dir: crashed }, ledgers: [recovered] })
    expect([...recovered.map]).toEqual([
      ['a', 1],
      ['b', 2],
    ])
    await reopened.close()
  })

  it('refuses a directory whose log names a ledger this engine does not define', async () => {
    const dir = tempDir()
    let engine = await openEngine({
      storage: { mode: 'persistent', dir, checkpointEveryBytes: 1e12 },
      ledgers: [new MapLedger()],
    })
    await engine.transact('w', (_tx, _store, l) => l.write('test-map', { key: 'a', value: 1 }))
    await engine.close()
    await expect(openEngine({ storage: { mode: 'persistent', dir } })).rejects.toThrow(
      /unknown ledger test-map/,
    )
    engine = await openEngine({ storage: { mode: 'persistent', dir }, ledgers: [new MapLedger()] })
    await engine.close()
  })

  it('publishes nothing and answers DURABILITY_FAILED when the WAL write fails', async () => {
    const ledger = new MapLedger()
    const engine = await openEngine({ storage: { mode: 'persistent', dir: tempDir() }, ledgers: [ledger] })
    injectStorageFailure(engine)
    await expect(
      engine.transact('w', (tx, store, l) => {
        tx.createNode([store.names.id('Memory')], new Map())
        l.write('test-map', { key: 'a', value: 1 })
      }),
    ).rejects.toMatchObject({ code: 'DURABILITY_FAILED' })
    expect(engine.isReady()).toBe(false)
    // Reads go on once the published state is rebuilt from what is durable: the refused write is absent.
    const nodes = await engine.read('MATCH (n) RETURN count(n) AS c', {}, { workspaceId: 'w' })
    expect(nodes.data?.rows).toEqual([[0]])
    expect(ledger.map.size).toBe(0)
    await engine.close()
  })
})

// A fuzz finding: the WAL and checkpoint encoders built plain objects, and a property named __proto__
// set the prototype instead, so it vanished on restart.
describe('property names of Object.prototype in storage', () => {
  it('survive the WAL replay and the checkpoint', async () => {
    const dir = tempDir()
    const read = async (engine: Awaited<ReturnType<typeof openEngine>>) =>
      (await engine.read('MATCH (n) RETURN properties(n) AS p')).data?.rows[0]?.[0]
    let engine = await openEngine({ storage: { mode: 'persistent', dir, checkpointEveryBytes: 1e12 } })
    await engine.write("CREATE ({__proto__: 'p', constructor: 'c'})-[:R {__proto__: 1}]->()")
    const crashed = tempDir()
    cpSync(dir, crashed, { recursive: true, filter: (path) => !path.endsWith('.lock') })
    await engine.close()
    const expected = JSON.parse('{"__proto__":"p","constructor":"c"}')
    const replayed = await openEngine({ storage: { mode: 'persistent', dir: crashed } })
    expect(await read(replayed)).toEqual(expected)
    await replayed.close()
    engine = await openEngine({ storage: { mode: 'persistent', dir } })
    expect(await read(engine)).toEqual(expected)
    const rel = await engine.read('MATCH ()-[r]->() RETURN properties(r) AS p')
    expect(rel.data?.rows[0]?.[0]).toEqual(JSON.parse('{"__proto__":1}'))
    await engine.close()
  })
})
