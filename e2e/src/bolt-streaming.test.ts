import { readFileSync } from 'node:fs'
import type { Driver } from 'neo4j-driver'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type BoltServer, driverFor, startBoltServer } from './bolt-support.js'

/** The streamed-records bound the server runs with: the 1M case sits exactly on it. */
const MAX_STREAMED = 1_000_000

/** The server process's resident memory (Linux /proc). */
function rssBytes(server: BoltServer): number {
  const status = readFileSync(`/proc/${server.process.pid}/status`, 'utf8')
  const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1]
  return Number(kb) * 1024
}

/** A counter or gauge of /metrics (0 when absent). */
async function metric(server: BoltServer, name: string): Promise<number> {
  const text = (await server.request('/metrics')).text
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(text)
  return match ? Number(match[1]) : 0
}

describe('Bolt streaming of large results', () => {
  let server: BoltServer
  let driver: Driver

  beforeAll(async () => {
    server = await startBoltServer({
      env: { SERVICE_BOLT_MAX_STREAMED_RECORDS: String(MAX_STREAMED) },
    })
    driver = driverFor(server, 'bolt', { disableLosslessIntegers: true })
  })
  afterAll(async () => {
    await server?.stop()
  })

  it('streams 1M records of one RUN, counted and summed exactly, at the edge of the setting', async () => {
    const session = driver.session({ fetchSize: 5000 })
    let count = 0
    let sum = 0
    const summary = await new Promise<{ queryType: string }>((resolve, reject) => {
      session.run('UNWIND range(1, $n) AS i RETURN i', { n: MAX_STREAMED }).subscribe({
        onNext: (record) => {
          count++
          sum += record.get('i') as number
        },
        onCompleted: (done) => resolve(done as { queryType: string }),
        onError: reject,
      })
    })
    await session.close()
    expect(count).toBe(MAX_STREAMED)
    expect(sum).toBe((MAX_STREAMED * (MAX_STREAMED + 1)) / 2)
    expect(summary.queryType).toBe('r')
    // One record past the setting is refused, as a budget.
    const failure = await driver
      .executeQuery('UNWIND range(1, $n) AS i RETURN i', { n: MAX_STREAMED + 1 })
      .catch((error: { code: string; message: string }) => error)
    expect(failure).toMatchObject({ code: 'Neo.ClientError.Statement.ExecutionFailed' })
    expect((failure as { message: string }).message).toContain(
      `streamed_records: actual ${MAX_STREAMED + 1}, limit ${MAX_STREAMED}`,
    )
    expect(await metric(server, 'service_bolt_open_streams')).toBe(0)
  }, 120_000)

  it('streams nodes of a graph larger than the HTTP row budget: MATCH (n:Item) RETURN n.id, n.name', async () => {
    await driver.executeQuery('UNWIND range(1, 4000) AS i CREATE (:Item {id: i, name: "item-" + i})')
    await driver.executeQuery('UNWIND range(4001, 8000) AS i CREATE (:Item {id: i, name: "item-" + i})')
    await driver.executeQuery('UNWIND range(8001, 12000) AS i CREATE (:Item {id: i, name: "item-" + i})')
    const { records } = await driver.executeQuery('MATCH (n:Item) RETURN n.id AS id, n.name AS name')
    expect(records).toHaveLength(12_000)
    expect(records.reduce((sum, r) => sum + (r.get('id') as number), 0)).toBe((12_000 * 12_001) / 2)
    expect(records[41]?.get('name')).toBe(`item-${records[41]?.get('id')}`)
    // Over HTTP the same query is held to its row budget.
    const http = await server.request<{ result: { validation_errors: { message: string }[] } }>(
      '/v1/cypher/read',
      { body: { query: 'MATCH (n:Item) RETURN n.id, n.name' } },
    )
    expect(http.json.result.validation_errors[0]?.message).toContain('returned_records')
  }, 60_000)

  it('frees the work of a consumer that stops early (DISCARD after a few records)', async () => {
    const before = await metric(server, 'service_bolt_streamed_records_total')
    const session = driver.session({ fetchSize: 1000 })
    const result = session.run('UNWIND range(1, 1000000) AS i RETURN i')
    let seen = 0
    for await (const record of result) {
      expect(record.get('i')).toBe(++seen)
      if (seen === 5) break
    }
    // Breaking out cancels the rest (the driver sends DISCARD, which stops the work); summary() (driver 6's
    // consume()) answers at once.
    await result.summary()
    await session.close()
    const computed = (await metric(server, 'service_bolt_streamed_records_total')) - before
    expect(computed).toBeLessThan(10_000)
    expect(await metric(server, 'service_bolt_open_streams')).toBe(0)
  }, 60_000)

  it('frees the work of a stream whose connection closes, or that a session reset', async () => {
    const before = await metric(server, 'service_bolt_streamed_records_total')
    const closing = driverFor(server, 'bolt', { disableLosslessIntegers: true })
    const session = closing.session({ fetchSize: 1000 })
    const iterator = session.run('UNWIND range(1, 1000000) AS i RETURN i')[Symbol.asyncIterator]()
    // The iterator's value is a record while the stream runs (its summary only once done).
    const first = (await iterator.next()).value as { get(key: string): unknown } | undefined
    expect(first?.get('i')).toBe(1)
    expect(await metric(server, 'service_bolt_open_streams')).toBe(1)
    // The driver closes its connections with the stream open (no DISCARD): the server stops it.
    await closing.close()
    for (let i = 0; i < 50 && (await metric(server, 'service_bolt_open_streams')) > 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 20))
    expect(await metric(server, 'service_bolt_open_streams')).toBe(0)
    // A session closed mid-stream (the driver discards or resets) leaves nothing open either.
    const other = driver.session({ fetchSize: 1000 })
    const partial = other.run('UNWIND range(1, 1000000) AS i RETURN i')[Symbol.asyncIterator]()
    await partial.next()
    await other.close()
    expect(await metric(server, 'service_bolt_open_streams')).toBe(0)
    const computed = (await metric(server, 'service_bolt_streamed_records_total')) - before
    expect(computed).toBeLessThan(20_000)
  }, 60_000)

  it('keeps server memory bounded for a slow consumer (back-pressure: PULL n)', async () => {
    const session = driver.session({ fetchSize: 1000 })
    const padding = 'x'.repeat(200)
    // 1M records of about 220 bytes: some 220 MB if the server held them.
    const result = session.run('UNWIND range(1, 1000000) AS i RETURN i, $padding + i AS text', { padding })
    const rssBefore = rssBytes(server)
    const computedBefore = await metric(server, 'service_bolt_streamed_records_total')
    let seen = 0
    for await (const record of result) {
      seen++
      if (seen === 20_000) break
      // The consumer is slow: it waits every 2,000 records.
      if (seen % 2000 === 0) await new Promise((resolve) => setTimeout(resolve, 20))
      expect((record.get('text') as string).length).toBeGreaterThan(200)
    }
    // The server computed what the driver pulled (its fetch size ahead), not the result.
    const computed = (await metric(server, 'service_bolt_streamed_records_total')) - computedBefore
    expect(computed).toBeLessThanOrEqual(seen + 3 * 1000)
    expect(rssBytes(server) - rssBefore).toBeLessThan(64 * 1024 * 1024)
    await result.summary()
    await session.close()
  }, 60_000)

  it('answers HTTP while a 1M-record stream is being sent (PULL all: slices with the event loop turning)', async () => {
    const session = driver.session({ fetchSize: -1 })
    let count = 0
    let streamDoneAt = 0
    const streaming = new Promise<void>((resolve, reject) => {
      session.run('UNWIND range(1, 1000000) AS i RETURN i').subscribe({
        onNext: () => {
          count++
        },
        onCompleted: () => {
          streamDoneAt = performance.now()
          resolve()
        },
        onError: reject,
      })
    })
    // Once records flow, ask HTTP for an answer.
    while (count === 0) await new Promise((resolve) => setTimeout(resolve, 5))
    const http = await server.request<{ result: { data: { rows: unknown[][] } } }>('/v1/cypher/read', {
      body: { query: 'RETURN 41 + 1 AS answer' },
    })
    const httpAt = performance.now()
    const countWhenAnswered = count
    expect(http.json.result.data.rows).toEqual([[42]])
    await streaming
    await session.close()
    expect(count).toBe(1_000_000)
    expect(httpAt).toBeLessThan(streamDoneAt)
    expect(countWhenAnswered).toBeLessThan(1_000_000)
  }, 120_000)

  it('streams a read inside an explicit transaction that sees the transaction’s writes', async () => {
    const session = driver.session()
    const tx = session.beginTransaction()
    await tx.run('UNWIND range(1, 200) AS i CREATE (:TxItem {i: i})')
    // 200 × 200 = 40,000 rows: more than the HTTP row budget, so only a stream can answer it.
    const result = await tx.run('MATCH (a:TxItem), (b:TxItem) RETURN a.i AS a, b.i AS b')
    expect(result.records).toHaveLength(40_000)
    expect(result.records.reduce((sum, r) => sum + (r.get('a') as number), 0)).toBe(200 * 20_100)
    await tx.rollback()
    await session.close()
    const after = await driver.executeQuery('MATCH (n:TxItem) RETURN count(n) AS n')
    expect(after.records[0]?.get('n')).toBe(0)
  }, 60_000)

  it('reports query type s for schema commands, w and rw for writes', async () => {
    const type = async (query: string) => (await driver.executeQuery(query)).summary.queryType
    expect(await type('CREATE INDEX stream_item_name IF NOT EXISTS FOR (n:Item) ON (n.name)')).toBe('s')
    expect(await type('DROP INDEX stream_item_name')).toBe('s')
    expect(await type('CREATE (:TypeProbe)')).toBe('w')
    expect(await type('MATCH (p:TypeProbe) SET p.x = 1')).toBe('rw')
    expect(await type('CREATE (p:TypeProbe) RETURN p')).toBe('rw')
    expect(await type('MATCH (p:TypeProbe) RETURN count(p)')).toBe('r')
  })
})
