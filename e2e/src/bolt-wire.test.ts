import { connect, type Socket } from 'node:net'
import { Dechunker, Packer, type PackValue, type Structure, Unpacker } from '@service/plugin-bolt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type BoltServer, startBoltServer } from './bolt-support.js'
import { TOKEN } from './harness.js'

/** A raw Bolt client: the handshake and messages as bytes, responses decoded. */
class RawClient {
  private readonly socket: Socket
  private buffered = Buffer.alloc(0)
  private readonly dechunker = new Dechunker(1 << 24)
  private readonly waiting: (() => void)[] = []
  readonly closed: Promise<void>

  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1')
    this.socket.on('data', (data: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, data])
      for (const wake of this.waiting.splice(0)) wake()
    })
    this.socket.on('error', () => {})
    this.closed = new Promise((resolve) => this.socket.once('close', () => resolve()))
  }

  write(bytes: Buffer): void {
    this.socket.write(bytes)
  }

  async read(count: number): Promise<Buffer> {
    while (this.buffered.length < count) await new Promise<void>((resolve) => this.waiting.push(resolve))
    const out = this.buffered.subarray(0, count)
    this.buffered = this.buffered.subarray(count)
    return out
  }

  send(signature: number, ...fields: PackValue[]): void {
    const packer = new Packer()
    packer.beginMessage()
    packer.structure(signature, fields)
    packer.endMessage()
    this.write(packer.finish())
  }

  /** The next response: its signature and first field. */
  async response(): Promise<{ signature: number; data: PackValue }> {
    for (;;) {
      const messages = this.dechunker.feed(this.buffered)
      this.buffered = Buffer.alloc(0)
      if (messages.length > 0) {
        const value = new Unpacker(messages[0] as Buffer).unpack() as Structure
        // One message at a time: put back what followed.
        for (const rest of messages.slice(1)) {
          const size = Buffer.alloc(2)
          size.writeUInt16BE(rest.length)
          this.buffered = Buffer.concat([this.buffered, size, rest, Buffer.alloc(2)])
        }
        return { signature: value.signature, data: value.fields[0] ?? null }
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve))
    }
  }

  destroy(): void {
    this.socket.destroy()
  }
}

const handshake = (...proposals: number[][]) =>
  Buffer.concat([
    Buffer.from('6060b017', 'hex'),
    ...proposals.map((p) => Buffer.from(p)),
    Buffer.alloc(16 - 4 * proposals.length),
  ])
const map = (entries: Record<string, PackValue>) => new Map(Object.entries(entries))

describe('Bolt wire (raw sockets)', () => {
  let server: BoltServer
  beforeAll(async () => {
    server = await startBoltServer({
      env: { SERVICE_BOLT_IDLE_TIMEOUT_MS: '1000', SERVICE_BOLT_MAX_MESSAGE_BYTES: '4096' },
    })
  })
  afterAll(async () => {
    await server?.stop()
  })

  it('answers Bolt 5.4 the classic way and serves HELLO, LOGON, RUN, PULL', async () => {
    const client = new RawClient(server.boltPort)
    client.write(handshake([0, 4, 4, 5], [0, 0, 4, 4]))
    expect([...(await client.read(4))]).toEqual([0, 0, 4, 5])
    client.send(0x01, map({ user_agent: 'raw/1.0' }))
    const hello = await client.response()
    expect(hello.signature).toBe(0x70)
    expect(String((hello.data as Map<string, PackValue>).get('server'))).toMatch(/^Neo4j\/5/)
    client.send(0x6a, map({ scheme: 'bearer', credentials: TOKEN }))
    expect((await client.response()).signature).toBe(0x70)
    client.send(0x10, 'RETURN $x * 2 AS y', map({ x: 21n }), map({}))
    client.send(0x3f, map({ n: -1n }))
    const run = await client.response()
    expect((run.data as Map<string, PackValue>).get('fields')).toEqual(['y'])
    const record = await client.response()
    expect([record.signature, record.data]).toEqual([0x71, [42n]])
    expect((await client.response()).signature).toBe(0x70)
    client.send(0x02)
    await client.closed
  })

  it('answers zeros to versions it does not speak, and closes', async () => {
    const client = new RawClient(server.boltPort)
    client.write(handshake([0, 0, 4, 4], [0, 0, 0, 3]))
    expect([...(await client.read(4))]).toEqual([0, 0, 0, 0])
    await client.closed
  })

  it('closes a hostile stream (a message past the size bound, an absurd declared size) and keeps serving', async () => {
    const big = new RawClient(server.boltPort)
    big.write(handshake([0, 0, 4, 5]))
    await big.read(4)
    // One chunk larger than SERVICE_BOLT_MAX_MESSAGE_BYTES: refused as soon as its header is read.
    big.write(Buffer.from([0x20, 0x00]))
    await big.closed

    const absurd = new RawClient(server.boltPort)
    absurd.write(handshake([0, 0, 4, 5]))
    await absurd.read(4)
    // HELLO whose only field claims 4 billion list elements.
    absurd.write(Buffer.from([0x00, 0x07, 0xb1, 0x01, 0xd6, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00]))
    await absurd.closed

    const health = await server.request<{ bolt: { listening: boolean } }>('/health')
    expect(health.json.bolt.listening).toBe(true)
  })

  it('closes a connection that stays silent past SERVICE_BOLT_IDLE_TIMEOUT_MS', async () => {
    const client = new RawClient(server.boltPort)
    client.write(handshake([0, 0, 4, 5]))
    await client.read(4)
    const started = Date.now()
    await client.closed
    expect(Date.now() - started).toBeGreaterThanOrEqual(900)
  })

  it('refuses an HTTP request on the Bolt port by closing it', async () => {
    const client = new RawClient(server.boltPort)
    client.write(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'))
    await client.closed
  })
})
