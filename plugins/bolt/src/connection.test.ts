import { describe, expect, it } from 'vitest'
import { chunkMessage, Dechunker } from './chunking.js'
import { BoltConnection } from './connection.js'
import { Failures } from './failures.js'
import { Request, Response } from './messages.js'
import { MAX_OPEN_RESULTS } from './open-results.js'
import { Packer } from './packstream/packer.js'
import type { PackValue, Structure } from './packstream/structure.js'
import { DEFAULT_UNPACK_LIMITS, Unpacker } from './packstream/unpacker.js'
import { scriptedBackend } from './scripted-backend.js'

interface Reply {
  type: 'SUCCESS' | 'RECORD' | 'IGNORED' | 'FAILURE'
  data: Map<string, PackValue> | PackValue[]
}
const TYPES: Record<number, Reply['type']> = {
  [Response.SUCCESS]: 'SUCCESS',
  [Response.RECORD]: 'RECORD',
  [Response.IGNORED]: 'IGNORED',
  [Response.FAILURE]: 'FAILURE',
}

/** A connection driven the way a client drives it: handshake bytes, then chunked messages. */
function connect(minor = 4, options: { refusal?: ReturnType<typeof Failures.unauthorized> } = {}) {
  const fake = scriptedBackend()
  const written: Buffer[] = []
  const flow: string[] = []
  let closed = false
  let drains = 0
  const connection = new BoltConnection({
    backend: fake.backend,
    connectionId: 'bolt-test',
    serverAgent: 'Neo4j/5.26.0 (test)',
    maxMessageBytes: 1 << 20,
    unpackLimits: DEFAULT_UNPACK_LIMITS,
    requestTimeoutMs: 1000,
    txIdleTimeoutMs: 1000,
    localAddress: '127.0.0.1:7687',
    refusal: options.refusal ?? null,
    write: (bytes) => written.push(bytes),
    drained: () => {
      drains++
      return undefined
    },
    pause: () => flow.push('pause'),
    resume: () => flow.push('resume'),
    close: () => {
      closed = true
    },
  })
  connection.receive(
    Buffer.concat([Buffer.from('6060b017', 'hex'), Buffer.from([0, 0, minor, 5]), Buffer.alloc(12)]),
  )
  const handshake = written.splice(0)
  const dechunker = new Dechunker(1 << 24)
  const send = async (signature: number, ...fields: PackValue[]): Promise<Reply[]> => {
    const packer = new Packer()
    packer.structure(signature, fields)
    connection.receive(chunkMessage(packer.finish()))
    return replies(5)
  }
  /** What the connection wrote after waiting `ms`. */
  const replies = async (ms: number): Promise<Reply[]> => {
    await new Promise((resolve) => setTimeout(resolve, ms))
    return written.splice(0).flatMap((bytes) =>
      dechunker.feed(bytes).map((message) => {
        const value = new Unpacker(message).unpack() as Structure
        const type = TYPES[value.signature] as Reply['type']
        return {
          type,
          data:
            type === 'RECORD'
              ? (value.fields[0] as PackValue[])
              : (value.fields[0] as Map<string, PackValue>),
        }
      }),
    )
  }
  const map = (entries: Record<string, PackValue>) => new Map(Object.entries(entries))
  const ready = async () => {
    await send(Request.HELLO, map({ user_agent: 'test' }))
    await send(Request.LOGON, map({ scheme: 'basic', principal: 'x', credentials: 'secret' }))
  }
  return {
    connection,
    send,
    replies,
    map,
    ready,
    handshake,
    fake,
    flow,
    isClosed: () => closed,
    drains: () => drains,
  }
}

const meta = (reply: Reply | undefined, key: string) =>
  (reply?.data as Map<string, PackValue> | undefined)?.get(key)

describe('Bolt state machine', () => {
  it('goes HELLO → AUTHENTICATION → LOGON → READY and names a Neo4j/5 server', async () => {
    const c = connect(4)
    expect(c.handshake[0]).toEqual(Buffer.from([0, 0, 4, 5]))
    const [hello] = await c.send(Request.HELLO, c.map({ user_agent: 'test' }))
    expect(hello?.type).toBe('SUCCESS')
    expect(meta(hello, 'server')).toMatch(/^Neo4j\/5/)
    expect(meta(hello, 'connection_id')).toBe('bolt-test')
    expect(c.connection.state).toBe('authentication')
    // RUN before LOGON is a protocol violation.
    const [early] = await c.send(Request.RUN, 'RETURN 1', c.map({}), c.map({}))
    expect(early?.type).toBe('FAILURE')
    expect(meta(early, 'code')).toBe('Neo.ClientError.Request.Invalid')
  })

  it('refuses wrong credentials with Unauthorized and ends the connection', async () => {
    const c = connect(4)
    await c.send(Request.HELLO, c.map({}))
    const [refused] = await c.send(
      Request.LOGON,
      c.map({ scheme: 'basic', principal: 'x', credentials: 'nope' }),
    )
    expect(refused?.type).toBe('FAILURE')
    expect(meta(refused, 'code')).toBe('Neo.ClientError.Security.Unauthorized')
    expect(String(meta(refused, 'message'))).not.toContain('nope')
    expect(c.isClosed()).toBe(true)
  })

  it('authenticates in HELLO on Bolt 5.0', async () => {
    const c = connect(0)
    const [hello] = await c.send(
      Request.HELLO,
      c.map({ scheme: 'basic', principal: 'x', credentials: 'secret' }),
    )
    expect(hello?.type).toBe('SUCCESS')
    expect(c.connection.state).toBe('ready')
  })

  it('pages PULL n with has_more, then a final summary; DISCARD skips the rest', async () => {
    const c = connect(4)
    await c.ready()
    const [run] = await c.send(Request.RUN, 'RETURN 5', c.map({}), c.map({ mode: 'r', db: 'ws-a' }))
    expect(meta(run, 'fields')).toEqual(['i'])
    expect(c.fake.calls[0]).toMatchObject({ mode: 'read', workspaceId: 'ws-a', rows: 'stream' })
    const page = await c.send(Request.PULL, c.map({ n: 2n }))
    expect(page.map((r) => r.type)).toEqual(['RECORD', 'RECORD', 'SUCCESS'])
    expect(page[0]?.data).toEqual([0n])
    expect(meta(page[2], 'has_more')).toBe(true)
    const rest = await c.send(Request.DISCARD, c.map({ n: -1n }))
    expect(rest.map((r) => r.type)).toEqual(['SUCCESS'])
    expect(meta(rest[0], 'bookmark')).toBe('commit-seq:7')
    expect(meta(rest[0], 'type')).toBe('r')
    expect(meta(rest[0], 'db')).toBe('ws-a')
    expect(c.connection.state).toBe('ready')
  })

  it('answers IGNORED after a FAILURE until RESET', async () => {
    const c = connect(4)
    await c.ready()
    const [failed] = await c.send(Request.RUN, 'FAIL', c.map({}), c.map({}))
    expect(meta(failed, 'code')).toBe('Neo.ClientError.Statement.SyntaxError')
    expect((await c.send(Request.PULL, c.map({ n: -1n })))[0]?.type).toBe('IGNORED')
    expect((await c.send(Request.RUN, 'RETURN 1', c.map({}), c.map({})))[0]?.type).toBe('IGNORED')
    expect((await c.send(Request.RESET))[0]?.type).toBe('SUCCESS')
    expect((await c.send(Request.RUN, 'RETURN 1', c.map({}), c.map({})))[0]?.type).toBe('SUCCESS')
  })

  it('carries GQL status fields on Bolt 5.7+ failures', async () => {
    const c = connect(8)
    await c.ready()
    const [failed] = await c.send(Request.RUN, 'FAIL', c.map({}), c.map({}))
    expect(meta(failed, 'neo4j_code')).toBe('Neo.ClientError.Statement.SyntaxError')
    expect(meta(failed, 'gql_status')).toBe('42001')
    expect(meta(failed, 'description')).toMatch(/bad/)
    expect((meta(failed, 'diagnostic_record') as Map<string, PackValue>).get('_classification')).toBe(
      'CLIENT_ERROR',
    )
  })

  it('runs a transaction: BEGIN, RUNs with qids, PULL by qid, COMMIT with a bookmark', async () => {
    const c = connect(4)
    await c.ready()
    const [begin] = await c.send(
      Request.BEGIN,
      c.map({ mode: 'w', db: 'ws-b', tx_metadata: c.map({ session_id: 'session--x' }), tx_timeout: 500n }),
    )
    expect(begin?.type).toBe('SUCCESS')
    expect(c.fake.txs[0]?.options).toMatchObject({
      workspaceId: 'ws-b',
      mode: 'write',
      sessionId: 'session--x',
    })
    const [first] = await c.send(Request.RUN, 'RETURN 2', c.map({}), c.map({}))
    const [second] = await c.send(Request.RUN, 'RETURN 1', c.map({}), c.map({}))
    expect([meta(first, 'qid'), meta(second, 'qid')]).toEqual([0n, 1n])
    const fromFirst = await c.send(Request.PULL, c.map({ n: -1n, qid: 0n }))
    expect(fromFirst.map((r) => r.type)).toEqual(['RECORD', 'RECORD', 'SUCCESS'])
    expect(c.connection.state).toBe('tx_streaming')
    await c.send(Request.PULL, c.map({ n: -1n }))
    expect(c.connection.state).toBe('tx_ready')
    const [unknown] = await c.send(Request.RUN, 'RETURN 0', c.map({}), c.map({}))
    expect(unknown?.type).toBe('SUCCESS')
    const [bad] = await c.send(Request.PULL, c.map({ n: -1n, qid: 9n }))
    expect(meta(bad, 'code')).toBe('Neo.ClientError.Request.Invalid')
    await c.send(Request.RESET)
    expect(c.fake.txs[0]?.ended).toBe('rollback')

    await c.send(Request.BEGIN, c.map({}))
    await c.send(Request.RUN, 'RETURN 1', c.map({}), c.map({}))
    const [commit] = await c.send(Request.COMMIT)
    expect(meta(commit, 'bookmark')).toBe('commit-seq:7')
    expect(c.fake.txs[1]?.ended).toBe('commit')
    expect(c.connection.state).toBe('ready')
  })

  it('rolls back an open transaction when the socket closes', async () => {
    const c = connect(4)
    await c.ready()
    await c.send(Request.BEGIN, c.map({}))
    c.connection.closed()
    expect(c.fake.txs[0]?.ended).toBe('rollback')
  })

  it('answers ROUTE with the address the client used, and TELEMETRY, LOGOFF, GOODBYE', async () => {
    const c = connect(4)
    await c.ready()
    const [route] = await c.send(
      Request.ROUTE,
      c.map({ address: 'db.example:7687' }),
      [],
      c.map({ db: null }),
    )
    const rt = meta(route, 'rt') as Map<string, PackValue>
    expect(rt.get('servers')).toEqual([
      new Map<string, PackValue>([
        ['addresses', ['db.example:7687']],
        ['role', 'ROUTE'],
      ]),
    ])
    expect((await c.send(Request.TELEMETRY, 1n))[0]?.type).toBe('SUCCESS')
    expect((await c.send(Request.LOGOFF))[0]?.type).toBe('SUCCESS')
    expect(c.connection.state).toBe('authentication')
    await c.send(Request.GOODBYE)
    expect(c.isClosed()).toBe(true)
  })

  it('refuses a connection over the limit at HELLO with a clear message', async () => {
    const c = connect(4, { refusal: Failures.tooManyConnections(3) })
    const [hello] = await c.send(Request.HELLO, c.map({}))
    expect(String(meta(hello, 'message'))).toContain('too many Bolt connections')
    expect(c.isClosed()).toBe(true)
  })

  it('bounds open results in a transaction, and pauses reading while many messages wait', async () => {
    const c = connect(4)
    await c.ready()
    await c.send(Request.BEGIN, c.map({}))
    for (let i = 0; i < MAX_OPEN_RESULTS; i++) await c.send(Request.RUN, 'RETURN 1', c.map({}), c.map({}))
    const [refused] = await c.send(Request.RUN, 'RETURN 1', c.map({}), c.map({}))
    expect(String(meta(refused, 'message'))).toContain('PULL or DISCARD one first')
    await c.send(Request.RESET)

    const packer = new Packer()
    for (let i = 0; i < 300; i++) {
      packer.beginMessage()
      packer.structure(Request.RUN, ['RETURN 0', new Map(), new Map()])
      packer.endMessage()
      packer.beginMessage()
      packer.structure(Request.DISCARD, [new Map([['n', -1n]])])
      packer.endMessage()
    }
    c.connection.receive(packer.finish())
    expect(c.flow).toEqual(['pause'])
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(c.flow).toEqual(['pause', 'resume'])
  })

  it('drains: an idle connection ends at once and its open transaction rolls back', async () => {
    const c = connect(4)
    await c.ready()
    await c.send(Request.BEGIN, c.map({}))
    c.connection.drain()
    expect(c.isClosed()).toBe(true)
    expect(c.fake.txs[0]?.ended).toBe('rollback')
  })

  it('ends the connection on a malformed message', async () => {
    const c = connect(4)
    c.connection.receive(chunkMessage(Buffer.from([0xd3])))
    expect(c.isClosed()).toBe(true)
  })

  it('streams a cursor result: PULL n computes n more, the summary comes after the last', async () => {
    const c = connect(4)
    await c.ready()
    const [run] = await c.send(Request.RUN, 'STREAM 10', c.map({}), c.map({}))
    expect(meta(run, 'fields')).toEqual(['i'])
    expect(c.fake.calls[0]).toMatchObject({ rows: 'stream' })
    const cursor = c.fake.cursors[0]!
    expect(cursor.count).toBe(0) // nothing computed before the first PULL
    const first = await c.send(Request.PULL, c.map({ n: 3n }))
    expect(first.map((r) => r.data)).toEqual([[1n], [2n], [3n], new Map([['has_more', true]])])
    expect(cursor.count).toBe(3)
    const rest = await c.send(Request.PULL, c.map({ n: -1n }))
    expect(rest.slice(0, -1).map((r) => (r.data as bigint[])[0])).toEqual([4n, 5n, 6n, 7n, 8n, 9n, 10n])
    expect(meta(rest.at(-1), 'type')).toBe('r')
    expect(c.connection.state).toBe('ready')
    expect(c.fake.slices).toBe(2)
  })

  it('serves PULL -1 of a large stream slice by slice, waiting for the socket between slices', async () => {
    const c = connect(4)
    await c.ready()
    await c.send(Request.RUN, 'STREAM 10000', c.map({}), c.map({}))
    const all = await c.send(Request.PULL, c.map({ n: -1n }))
    while (all.at(-1)?.type !== 'SUCCESS') all.push(...(await c.replies(10)))
    const records = all.filter((r) => r.type === 'RECORD')
    expect(records.length).toBe(10_000)
    expect(records.reduce((sum, r) => sum + ((r.data as bigint[])[0] as bigint), 0n)).toBe(50_005_000n)
    // 10,000 records in slices of 4096: three slices, a drain wait between each two.
    expect(c.fake.slices).toBe(3)
    expect(c.drains()).toBe(2)
  })

  it('stops the work on DISCARD, RESET and a closed connection', async () => {
    const c = connect(4)
    await c.ready()
    await c.send(Request.RUN, 'STREAM 100000', c.map({}), c.map({}))
    await c.send(Request.PULL, c.map({ n: 5n }))
    const discarded = await c.send(Request.DISCARD, c.map({ n: -1n }))
    expect(discarded.map((r) => r.type)).toEqual(['SUCCESS'])
    expect(c.fake.cursors[0]?.hasMore).toBe(false)
    expect(c.fake.cursors[0]?.count).toBe(5)
    // DISCARD n skips n records and keeps the rest.
    await c.send(Request.RUN, 'STREAM 100', c.map({}), c.map({}))
    const skipped = await c.send(Request.DISCARD, c.map({ n: 10n }))
    expect(meta(skipped[0], 'has_more')).toBe(true)
    const [eleventh] = await c.send(Request.PULL, c.map({ n: 1n }))
    expect(eleventh?.data).toEqual([11n])
    await c.send(Request.RESET)
    expect(c.fake.cursors[1]?.hasMore).toBe(false)
    await c.send(Request.RUN, 'STREAM 100', c.map({}), c.map({}))
    c.connection.closed()
    expect(c.fake.cursors[2]?.hasMore).toBe(false)
  })

  it('fails a streamed pull of a transaction that has ended, and closes the result', async () => {
    const c = connect(4)
    await c.ready()
    await c.send(Request.BEGIN, c.map({}))
    await c.send(Request.RUN, 'STREAM 10', c.map({}), c.map({}))
    const [page] = await c.send(Request.PULL, c.map({ n: 2n, qid: 0n }))
    expect(page?.data).toEqual([1n])
    await c.send(Request.COMMIT)
    expect(c.fake.cursors[0]?.hasMore).toBe(false)
  })
})
