import { closeSync, fstatSync, mkdtempSync, openSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { CollectingSink as Collect } from '../__fixtures__/collecting-sink.js'
import { PersistentStorage } from '../persistent-storage.js'
import { backupArchive } from './backup-archive.js'
import { BackupGate } from './online-backup.js'
import { restoreFileArchive, stagingDirOf } from './restore.js'

const fresh = () => mkdtempSync(join(tmpdir(), 'backup-'))

const open = (dir: string, sink = new Collect()) =>
  PersistentStorage.open(
    { dir, requireFsync: true, strictRecovery: true, version: 'test', segmentBytes: 2048 },
    sink,
  ).then((s) => ({ s, sink }))

async function writeN(storage: PersistentStorage, from: number, n: number) {
  const appended = Array.from({ length: n }, (_, i) =>
    storage.append('test', { n: from + i, pad: 'p'.repeat(100) }),
  )
  await Promise.all(appended.map((a) => a.durable))
}

async function archiveBytes(chunks: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = []
  for await (const c of chunks) parts.push(c)
  return Buffer.concat(parts)
}

describe('file-store online backup', () => {
  it('holds exactly the durable sequence, though writes, checkpoints and compaction go on while it streams', async () => {
    const root = fresh()
    const { s } = await open(join(root, 'live'))
    await writeN(s, 0, 40)
    await s.checkpoint(s.lastSeq, ['{"kind":"marker","at":40}'])
    await writeN(s, 40, 40)
    const source = s.backupSource()
    expect(source.sequence).toBe(80)
    const inFlight = s.append('test', { n: 'in flight' })
    // Two more checkpoints compact away segments and the checkpoint the capture holds open.
    await writeN(s, 81, 40)
    await s.checkpoint(s.lastSeq, ['{"kind":"marker","at":121}'])
    await writeN(s, 121, 40)
    await s.checkpoint(s.lastSeq, ['{"kind":"marker","at":161}'])
    await inFlight.durable
    const bytes = await archiveBytes(backupArchive(source, Date.now))
    await s.close()

    const target = join(root, 'restored')
    const manifest = await restoreFileArchive(Readable.from([bytes]), target)
    expect(manifest.sequence).toBe(80)
    expect(manifest.files.map((f) => f.name)[0]).toBe('manifest.json')
    const { s: copy, sink } = await open(target)
    expect(copy.lastSeq).toBe(80)
    expect(sink.checkpoint).toEqual(['{"kind":"marker","at":40}'])
    expect(sink.records.map((r) => r.seq)).toEqual(Array.from({ length: 40 }, (_, i) => 41 + i))
    await copy.close()
  })

  it('restores nothing from a damaged archive and names the file; refuses a non-empty target', async () => {
    const root = fresh()
    const { s } = await open(join(root, 'live'))
    await writeN(s, 0, 10)
    const bytes = await archiveBytes(backupArchive(s.backupSource(), Date.now))
    await s.close()
    const at = bytes.indexOf('"n":3')
    const damaged = Buffer.from(bytes)
    damaged[at + 4] = '4'.charCodeAt(0)
    const target = join(root, 'restored')
    await expect(restoreFileArchive(Readable.from([damaged]), target)).rejects.toThrow(
      /wal\/segment-\d{20}\.jsonl fails its checksum/,
    )
    expect(readdirSync(root).sort()).toEqual(['live'])

    const full = join(root, 'full')
    await restoreFileArchive(Readable.from([bytes]), full)
    await expect(restoreFileArchive(Readable.from([bytes]), full)).rejects.toThrow(/not an empty directory/)
    // A restore killed midway leaves its staging directory, which the next restore refuses until removed.
    const killed = join(root, 'killed')
    writeFileSync(stagingDirOf(killed), '')
    await expect(restoreFileArchive(Readable.from([bytes]), killed)).rejects.toThrow(/did not finish/)
  })

  it('runs one backup at a time and frees the gate when the stream is abandoned', async () => {
    const { s } = await open(join(fresh(), 'live'))
    await writeN(s, 0, 5)
    const gate = new BackupGate()
    const first = await gate.start(s, Date.now)
    await expect(gate.start(s, Date.now)).rejects.toThrow(/already running/)
    first.stream.destroy()
    await new Promise((r) => first.stream.once('close', r))
    const second = await gate.start(s, Date.now)
    expect(second.sequence).toBe(5)
    await archiveBytes(second.stream)
    await expect(gate.start(null, Date.now)).rejects.toThrow(/ephemeral/)
    await s.close()
  })

  it('a file abandoned mid-read keeps its descriptor until release, which closes only its own', async () => {
    const dir = join(fresh(), 'live')
    const { s } = await open(dir)
    await writeN(s, 0, 40)
    const source = s.backupSource()
    const segment = source.files.find((f) => f.name.startsWith('wal/'))
    if (segment === undefined) throw new Error('no segment in the backup')
    for await (const _ of segment.read()) break
    await new Promise((r) => setTimeout(r, 20))
    // A descriptor the process opens meanwhile may take any number a reader gave back; release must not close it.
    const other = openSync(join(dir, 'manifest.json'), 'r')
    source.release()
    expect(() => fstatSync(other)).not.toThrow()
    closeSync(other)
    await s.close()
  })
})
