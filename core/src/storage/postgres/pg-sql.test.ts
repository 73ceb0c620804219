import type { ClientBase } from 'pg'
import { DataType, newDb } from 'pg-mem'
import { describe, expect, it } from 'vitest'
import { encodeWalRecord, type WalRecord } from '../wal-record.js'
import { readPgCheckpoint, writePgCheckpoint } from './pg-checkpoint.js'
import { readPgLog } from './pg-log-reader.js'
import { ensureSchema } from './schema.js'

/** An in-memory PostgreSQL (pg-mem) with the store's tables and one owner row at `epoch`. */
async function memoryStore(epoch = 1): Promise<ClientBase> {
  // pg-mem checks that it understood every part of a statement; a repeated CREATE TABLE IF NOT EXISTS trips it.
  const db = newDb({ noAstCoverageCheck: true })
  db.public.registerFunction({
    name: 'pg_advisory_xact_lock',
    args: [DataType.bigint],
    returns: DataType.text,
    implementation: () => '',
    impure: true,
  })
  const { Client } = db.adapters.createPg()
  const client = new Client() as ClientBase
  await client.connect()
  await ensureSchema(client)
  // A second start finds the tables there and changes nothing.
  await ensureSchema(client)
  await client.query(
    `INSERT INTO service_owner (id, graph_id, epoch, holder) VALUES (1, 'graph--t', $1, 'test')`,
    [epoch],
  )
  return client
}

const line = (seq: number, body: unknown = { n: seq }) =>
  encodeWalRecord({ seq, tx: `tx--${seq}`, at: 1_700_000_000_000 + seq, kind: 'graph', body }).slice(0, -1)

async function insertRows(client: ClientBase, rows: [number, string][]): Promise<void> {
  for (const [seq, text] of rows) {
    await client.query('INSERT INTO service_wal (seq, epoch, line) VALUES ($1, 1, $2)', [seq, text])
  }
}

describe('PostgreSQL store SQL (pg-mem)', () => {
  it('reads the log in sequence order, a page at a time, from a given sequence and up to another', async () => {
    const client = await memoryStore()
    await insertRows(
      client,
      [5, 3, 1, 2, 4].map((seq) => [seq, line(seq)] as [number, string]),
    )
    const seen: WalRecord[] = []
    const all = await readPgLog(client, 0, (r) => seen.push(r))
    expect(seen.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5])
    expect(all).toMatchObject({ lastSeq: 5, records: 5, gap: false })
    expect(seen[2]).toMatchObject({ seq: 3, tx: 'tx--3', kind: 'graph', body: { n: 3 } })
    const tail: number[] = []
    const part = await readPgLog(client, 2, (r) => tail.push(r.seq), 4)
    expect(tail).toEqual([3, 4])
    expect(part.lastSeq).toBe(4)
    const page: number[] = []
    expect((await readPgLog(client, 0, (r) => page.push(r.seq), Number.MAX_SAFE_INTEGER, 2)).lastSeq).toBe(2)
    expect(page).toEqual([1, 2])
  })

  it('reports a gap when the log does not continue from the sequence asked (retention passed it)', async () => {
    const client = await memoryStore()
    await insertRows(client, [
      [4, line(4)],
      [5, line(5)],
    ])
    const seen: number[] = []
    const read = await readPgLog(client, 1, (r) => seen.push(r.seq))
    expect(read).toMatchObject({ gap: true, lastSeq: 1, records: 0 })
    expect(seen).toEqual([])
  })

  it('refuses a damaged row: the JsonLinesV1 checksum covers each line', async () => {
    const client = await memoryStore()
    const good = line(1)
    await insertRows(client, [
      [1, good],
      [2, line(2).replace('"n":2', '"n":3')],
    ])
    await expect(readPgLog(client, 0, () => {})).rejects.toMatchObject({ code: 'STORAGE_RECOVERY_FAILED' })
  })

  it('writes a checkpoint in chunks and reads the same lines back, newest first', async () => {
    const client = await memoryStore()
    const lines = Array.from({ length: 2_500 }, (_, i) =>
      JSON.stringify({ kind: 'graph_nodes', i, pad: 'x'.repeat(600) }),
    )
    let pauses = 0
    const info = await writePgCheckpoint(client, 1, 10, lines, async () => {
      pauses++
    })
    expect(info).toMatchObject({ sequence: 10, records: 2_500 })
    expect(pauses).toBeGreaterThan(0) // more than one 1 MiB chunk, with a pause between
    const back: string[] = []
    const read = await readPgCheckpoint(client, (l) => back.push(l))
    expect(read).toMatchObject({ sequence: 10, records: 2_500 })
    expect(back).toEqual(lines)
  })

  it('keeps two checkpoint generations and drops the log rows the older one covers', async () => {
    const client = await memoryStore()
    await insertRows(
      client,
      Array.from({ length: 30 }, (_, i) => [i + 1, line(i + 1)] as [number, string]),
    )
    const pause = async () => {}
    await writePgCheckpoint(client, 1, 10, ['{"kind":"a"}'], pause)
    await writePgCheckpoint(client, 1, 20, ['{"kind":"b"}'], pause)
    // Both generations kept; the log reaches back to the older one.
    let rows = await client.query<{ seq: string }>('SELECT min(seq) AS seq FROM service_wal')
    expect(Number(rows.rows[0]!.seq)).toBe(11)
    await writePgCheckpoint(client, 1, 30, ['{"kind":"c"}'], pause)
    const kept = await client.query<{ sequence: string }>(
      'SELECT sequence FROM service_checkpoint ORDER BY sequence',
    )
    expect(kept.rows.map((r) => Number(r.sequence))).toEqual([20, 30])
    rows = await client.query<{ seq: string }>('SELECT min(seq) AS seq FROM service_wal')
    expect(Number(rows.rows[0]!.seq)).toBe(21)
    const chunks = await client.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM service_checkpoint_chunk WHERE sequence < 20',
    )
    expect(chunks.rows[0]!.n).toBe(0)
    const back: string[] = []
    expect((await readPgCheckpoint(client, (l) => back.push(l)))?.sequence).toBe(30)
    expect(back).toEqual(['{"kind":"c"}'])
  })

  it('a fenced writer cannot make its checkpoint current', async () => {
    const client = await memoryStore(2)
    await expect(writePgCheckpoint(client, 1, 5, ['{"kind":"a"}'], async () => {})).rejects.toMatchObject({
      code: 'STORAGE_FENCED',
    })
    expect(await readPgCheckpoint(client, () => {})).toBeNull()
  })

  it('refuses a checkpoint whose lines do not match its digest', async () => {
    const client = await memoryStore()
    await writePgCheckpoint(client, 1, 5, ['{"kind":"a"}', '{"kind":"b"}'], async () => {})
    await client.query('UPDATE service_checkpoint_chunk SET lines = $1', ['{"kind":"z"}\n{"kind":"b"}\n'])
    await expect(readPgCheckpoint(client, () => {})).rejects.toMatchObject({
      code: 'STORAGE_RECOVERY_FAILED',
    })
  })
})
