import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { restoreBackup, verifyBackup } from '../runtime/backup-restore.js'
import { openEngine } from '../runtime/index.js'
import { PAYLOAD_RECORD_FORMAT, RECORD_FORMAT } from '../version.js'
import { PAYLOAD_MAGIC, PayloadFile, resolvePayloadCells } from './payload-file.js'
import { PAYLOAD_FILE } from './persistent-storage.js'

const tempDir = () => join(mkdtempSync(join(tmpdir(), 'payload-ckpt-')), 'graph')
const ws = { workspaceId: 'w' }
/** Long enough for the payload file (300 UTF-8 bytes and more, multibyte characters included). */
const long = (i: number) => `${i}:${'é'.repeat(150)}${'x'.repeat(i % 7)}`
const manifestOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'))

const READ = 'MATCH (n:D) RETURN n.i AS i, n.text AS text, n.short AS short ORDER BY i'
const RELS = 'MATCH (:D)-[r:R]->(:D) RETURN r.note AS note ORDER BY note'

async function seeded(dir: string, options: { payloadCacheBytes?: number } = {}) {
  const engine = await openEngine({
    storage: { mode: 'persistent', dir, checkpointEveryBytes: 1e12, payloadMinBytes: 256, ...options },
  })
  await engine.write(
    'UNWIND range(0, 49) AS i CREATE (:D {i: i, text: $texts[i], short: "s" + i})',
    { texts: Array.from({ length: 50 }, (_, i) => long(i)) },
    ws,
  )
  await engine.write(
    'MATCH (a:D {i: 1}), (b:D {i: 2}) CREATE (a)-[:R {note: $note}]->(b)',
    { note: long(99) },
    ws,
  )
  return engine
}

/** A closed store whose checkpoint holds the seeded values in its payload file. */
async function checkpointedStore(): Promise<string> {
  const dir = tempDir()
  const engine = await seeded(dir)
  await engine.checkpoint()
  await engine.close()
  return dir
}

const expectedRows = () => Array.from({ length: 50 }, (_, i) => [i, long(i), `s${i}`])

describe('a checkpoint moves long values to the payload file', () => {
  it('writes them once, records the durable length and format, and recovery reads them back byte for byte', async () => {
    const dir = tempDir()
    let engine = await seeded(dir)
    const before = (await engine.read(READ, {}, ws)).data?.rows
    expect(before).toEqual(expectedRows())
    expect(manifestOf(dir).record_format).toBe(RECORD_FORMAT)
    await engine.checkpoint()
    const manifest = manifestOf(dir)
    expect(manifest.record_format).toBe(PAYLOAD_RECORD_FORMAT)
    const size = statSync(join(dir, PAYLOAD_FILE)).size
    expect(manifest.payloads).toEqual({ path: PAYLOAD_FILE, bytes: size })
    // 51 values over the threshold, each a record of 8 bytes of header and its UTF-8 text.
    const textBytes = [...Array(50).keys(), 99].reduce((n, i) => n + Buffer.byteLength(long(i)), 0)
    expect(size).toBe(PAYLOAD_MAGIC.length + 51 * 8 + textBytes)
    // The live graph now holds references: reads resolve them to the same text.
    expect((await engine.read(READ, {}, ws)).data?.rows).toEqual(before)
    // A second checkpoint rewrites nothing: a reference stays a reference.
    await engine.write('CREATE (:Other {v: 1})', {}, ws)
    await engine.checkpoint()
    expect(statSync(join(dir, PAYLOAD_FILE)).size).toBe(size)
    const image = readFileSync(join(dir, 'checkpoints', manifestOf(dir).components[0].path), 'utf8')
    expect(image).toContain('"$payload":[')
    expect(image).not.toContain(long(3))
    await engine.close()

    engine = await openEngine({ storage: { mode: 'persistent', dir, payloadCacheBytes: 1024 } })
    expect(engine.recoveryFacts().recovery_path).toBe('checkpoint_and_bounded_replay')
    expect((await engine.read(READ, {}, ws)).data?.rows).toEqual(before)
    expect((await engine.read(RELS, {}, ws)).data?.rows).toEqual([[long(99)]])
    // Equality lookups and updates of a value in the file.
    expect((await engine.read('MATCH (n:D {text: $t}) RETURN n.i', { t: long(7) }, ws)).data?.rows).toEqual([
      [7],
    ])
    await engine.write('MATCH (n:D {i: 7}) SET n.text = $t', { t: long(700) }, ws)
    await engine.close()
    engine = await openEngine({ storage: { mode: 'persistent', dir } })
    expect((await engine.read('MATCH (n:D {i: 7}) RETURN n.text', {}, ws)).data?.rows).toEqual([[long(700)]])
    await engine.close()
  })

  it('cuts payloads past the manifest length (a torn write or a checkpoint that never switched)', async () => {
    const dir = await checkpointedStore()
    const path = join(dir, PAYLOAD_FILE)
    const durable = statSync(path).size
    // A torn record at the end: a header promising more than is there.
    const torn = Buffer.alloc(12)
    torn.writeUInt32LE(1000, 0)
    writeFileSync(path, Buffer.concat([readFileSync(path), torn]))
    const warnings: string[] = []
    const engine = await openEngine({
      storage: { mode: 'persistent', dir },
      onWarning: (message) => warnings.push(message),
    })
    expect(statSync(path).size).toBe(durable)
    expect(warnings.some((w) => w.includes('unreferenced bytes'))).toBe(true)
    expect((await engine.read(READ, {}, ws)).data?.rows).toEqual(expectedRows())
    await engine.close()
  })

  it('reports a corrupted payload as STORAGE_PAYLOAD_CORRUPT instead of returning it', async () => {
    const dir = await checkpointedStore()
    const path = join(dir, PAYLOAD_FILE)
    const bytes = readFileSync(path)
    // Flip a byte inside the first record's text.
    bytes.writeUInt8(bytes.readUInt8(PAYLOAD_MAGIC.length + 11) ^ 0xff, PAYLOAD_MAGIC.length + 11)
    writeFileSync(path, bytes)
    const engine = await openEngine({ storage: { mode: 'persistent', dir } })
    await expect(engine.read('MATCH (n:D {i: 0}) RETURN n.text', {}, ws)).rejects.toMatchObject({
      code: 'STORAGE_PAYLOAD_CORRUPT',
    })
    // Values that are not damaged still read.
    expect((await engine.read('MATCH (n:D {i: 5}) RETURN n.text', {}, ws)).data?.rows).toEqual([[long(5)]])
    await engine.close()
  })

  it('an older build refuses the directory once it holds payloads', async () => {
    const dir = await checkpointedStore()
    const manifest = manifestOf(dir)
    expect(manifest.record_format).toBe(PAYLOAD_RECORD_FORMAT)
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ ...manifest, record_format: 'JsonLinesV99' }))
    await expect(openEngine({ storage: { mode: 'persistent', dir } })).rejects.toMatchObject({
      code: 'STORAGE_INCOMPATIBLE',
    })
  })

  it('an online backup carries the durable prefix; restore and verify check it', async () => {
    const dir = tempDir()
    const engine = await seeded(dir)
    await engine.checkpoint()
    const durable = statSync(join(dir, PAYLOAD_FILE)).size
    const backup = await engine.backup()
    // Payloads appended after the capture are not part of it.
    await engine.write('CREATE (:D {i: 100, text: $t})', { t: long(100) }, ws)
    await engine.checkpoint()
    expect(statSync(join(dir, PAYLOAD_FILE)).size).toBeGreaterThan(durable)
    const chunks: Buffer[] = []
    for await (const chunk of backup.stream) chunks.push(chunk as Buffer)
    await engine.close()
    const archive = join(mkdtempSync(join(tmpdir(), 'payload-bak-')), 'backup.tar')
    writeFileSync(archive, Buffer.concat(chunks))

    const target = tempDir()
    const report = await restoreBackup(Readable.from([Buffer.concat(chunks)]), target)
    expect(report.backup.sequence).toBe(backup.sequence)
    expect(statSync(join(target, PAYLOAD_FILE)).size).toBe(durable)
    const restored = await openEngine({ storage: { mode: 'persistent', dir: target } })
    expect((await restored.read(READ, {}, ws)).data?.rows).toEqual(expectedRows())
    expect((await restored.read(RELS, {}, ws)).data?.rows).toEqual([[long(99)]])
    await restored.close()
    expect((await verifyBackup(archive)).sequence).toBe(backup.sequence)
    expect((await verifyBackup(dir)).kind).toBe('directory')

    // A rotted payload fails verification, though recovery alone reads none.
    const path = join(dir, PAYLOAD_FILE)
    const bytes = readFileSync(path)
    bytes.writeUInt8(bytes.readUInt8(PAYLOAD_MAGIC.length + 9) ^ 0xff, PAYLOAD_MAGIC.length + 9)
    writeFileSync(path, bytes)
    await expect(verifyBackup(dir)).rejects.toMatchObject({ code: 'STORAGE_PAYLOAD_CORRUPT' })
  })

  it('resolves references back into values for a store that keeps them resident', async () => {
    const dir = await checkpointedStore()
    const manifest = manifestOf(dir)
    const lines = readFileSync(join(dir, 'checkpoints', manifest.components[0].path), 'utf8').split('\n')
    const { file } = PayloadFile.open(join(dir, PAYLOAD_FILE), {
      durableBytes: manifest.payloads.bytes,
      cacheBytes: 0,
    })
    const resolved = lines.map((line) => (line === '' ? line : resolvePayloadCells(line, file))).join('\n')
    file.close()
    expect(resolved).not.toContain('$payload')
    for (const i of [0, 17, 49, 99]) expect(resolved).toContain(JSON.stringify(long(i)))
  })

  it('a cache far smaller than the values still answers seed search as before the checkpoint', async () => {
    const dir = tempDir()
    const words = ['modbus', 'firmware', 'phishing', 'ransomware', 'beacon', 'exfiltration']
    const description = (i: number) =>
      `${words[i % words.length]} report ${i}: ${'details of the observed activity '.repeat(12)}`
    let engine = await openEngine({ storage: { mode: 'persistent', dir, checkpointEveryBytes: 1e12 } })
    await engine.write(
      'UNWIND range(0, 29) AS i CREATE (:Report {name: "r" + i, description: $d[i]})',
      { d: Array.from({ length: 30 }, (_, i) => description(i)) },
      ws,
    )
    const search = async () => {
      await engine.seed.warm()
      const out = []
      for (const objective of words)
        out.push(
          (
            await engine.seed.search({ objective, mode: 'full_text', top_k: 5, workspace_id: 'w' })
          ).candidates.map((c) => [c.node_id, c.score.toFixed(9)]),
        )
      return out
    }
    const before = await search()
    expect(before.every((hits) => hits.length === 5)).toBe(true)
    await engine.checkpoint()
    await engine.close()
    expect(manifestOf(dir).payloads.bytes).toBeGreaterThan(30 * 400)
    engine = await openEngine({ storage: { mode: 'persistent', dir, payloadCacheBytes: 512 } })
    expect(await search()).toEqual(before)
    expect(
      (await engine.read('MATCH (n:Report {name: "r4"}) RETURN n.description', {}, ws)).data?.rows,
    ).toEqual([[description(4)]])
    await engine.close()
  })
})
