import {
  BoltConnection,
  DEFAULT_UNPACK_LIMITS,
  Packer,
  type PackValue,
  Structure,
  scriptedBackend,
  Unpacker,
} from '@service/plugin-bolt'
import * as fc from 'fast-check'
import { type FuzzTarget, invariant } from '../target.js'

/**
 * The Bolt wire: handshake, chunking and PackStream. Inputs are a client's byte stream (a handshake, then
 * chunked messages built from arbitrary PackStream values, some valid Bolt requests), mutated (flipped bytes,
 * cut short, random bytes spliced in, sizes maxed out) and delivered in arbitrary pieces. Invariants: nothing
 * escapes `receive` (the connection answers or closes), every byte it writes is a well-formed chunked Bolt
 * response, and it buffers no more than its message limit; PackStream values round-trip exactly.
 */

const MAX_MESSAGE = 64 * 1024

const packValue: fc.Arbitrary<PackValue> = fc.letrec<{ value: PackValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }),
    fc.double(),
    fc.string({ unit: 'binary', maxLength: 300 }),
    fc.uint8Array({ maxLength: 300 }),
    fc.array(tie('value'), { maxLength: 20 }),
    fc
      .array(fc.tuple(fc.string({ maxLength: 20 }), tie('value')), { maxLength: 20 })
      .map((entries) => new Map(entries)),
    fc
      .tuple(fc.integer({ min: 0, max: 255 }), fc.array(tie('value'), { maxLength: 15 }))
      .map(([signature, fields]) => new Structure(signature, fields)),
  ),
})).value

const str = (s: string): PackValue => s
const requests: fc.Arbitrary<Structure> = fc.oneof(
  fc.constant(new Structure(0x01, [new Map([['user_agent', str('fuzz')]])])),
  fc.constant(
    new Structure(0x6a, [
      new Map([
        ['scheme', str('basic')],
        ['principal', str('u')],
        ['credentials', str('secret')],
      ]),
    ]),
  ),
  fc
    .tuple(fc.constantFrom('RETURN 1', 'FAIL', 'RETURN 3'), packValue)
    .map(([query, extra]) => new Structure(0x10, [query, new Map([['p', extra]]), new Map()])),
  fc.bigInt({ min: -2n, max: 5n }).map((n) => new Structure(0x3f, [new Map([['n', n]])])),
  fc.constantFrom(
    ...[0x0f, 0x12, 0x13, 0x02, 0x6b].map((signature) => new Structure(signature, [])),
    new Structure(0x11, [new Map()]),
    new Structure(0x2f, [new Map([['n', -1n]])]),
  ),
  packValue.map((value) => new Structure(0x10, [value, value, value])),
)

function chunked(message: Buffer): Buffer {
  const parts: Buffer[] = []
  for (let at = 0; at < message.length; at += 0xffff) {
    const piece = message.subarray(at, at + 0xffff)
    const size = Buffer.alloc(2)
    size.writeUInt16BE(piece.length)
    parts.push(size, piece)
  }
  parts.push(Buffer.alloc(2))
  return Buffer.concat(parts)
}

interface WireCase {
  minor: number
  messages: Structure[]
  mutations: { at: number; bytes: number[]; cut: boolean }[]
  pieces: number[]
}

const wireCase: fc.Arbitrary<WireCase> = fc.record({
  minor: fc.constantFrom(0, 1, 4, 7, 8, 255),
  messages: fc.array(requests, { maxLength: 12 }),
  mutations: fc.array(
    fc.record({
      at: fc.nat(),
      bytes: fc.array(
        fc.oneof(fc.integer({ min: 0, max: 255 }), fc.constantFrom(0xff, 0xd6, 0xda, 0xd2, 0xb0)),
        {
          maxLength: 6,
        },
      ),
      cut: fc.boolean(),
    }),
    { maxLength: 3 },
  ),
  pieces: fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 8 }),
})

const { backend } = scriptedBackend()

/** Every written byte decodes as chunked Bolt responses (SUCCESS, RECORD, IGNORED, FAILURE). */
function checkResponses(written: Buffer, handshakeBytes: number): void {
  let at = handshakeBytes
  let message: Buffer[] = []
  while (at < written.length) {
    invariant(at + 2 <= written.length, 'a response chunk header is cut')
    const size = written.readUInt16BE(at)
    at += 2
    if (size === 0) {
      const value = new Unpacker(Buffer.concat(message)).unpack()
      invariant(value instanceof Structure, 'a response is not a structure')
      invariant(
        [0x70, 0x71, 0x7e, 0x7f].includes(value.signature),
        `unknown response 0x${value.signature.toString(16)}`,
      )
      message = []
      continue
    }
    invariant(at + size <= written.length, 'a response chunk is cut')
    message.push(written.subarray(at, at + size))
    at += size
  }
  invariant(message.length === 0, 'a response message is not terminated')
}

async function checkWire(input: WireCase): Promise<void> {
  const packer = new Packer()
  const messages = input.messages.map((message) => {
    packer.pack(message)
    return chunked(packer.finish())
  })
  const opening = Buffer.concat([
    Buffer.from('6060b017', 'hex'),
    Buffer.from(input.minor === 255 ? [0, 0, 1, 0xff] : [0, 0, input.minor, 5]),
    Buffer.alloc(12),
    // The manifest pick, when negotiating by manifest.
    input.minor === 255 ? Buffer.from([0, 0, 8, 5, 0]) : Buffer.alloc(0),
  ])
  let stream = Buffer.concat([opening, ...messages])
  for (const mutation of input.mutations) {
    const at = stream.length === 0 ? 0 : mutation.at % stream.length
    stream = mutation.cut
      ? Buffer.concat([stream.subarray(0, at), Buffer.from(mutation.bytes)])
      : Buffer.concat([stream.subarray(0, at), Buffer.from(mutation.bytes), stream.subarray(at)])
  }
  const written: Buffer[] = []
  let closed = false
  const connection = new BoltConnection({
    backend,
    connectionId: 'bolt-fuzz',
    serverAgent: 'Neo4j/5.26.0 (fuzz)',
    maxMessageBytes: MAX_MESSAGE,
    unpackLimits: DEFAULT_UNPACK_LIMITS,
    requestTimeoutMs: 1000,
    txIdleTimeoutMs: 1000,
    localAddress: '127.0.0.1:7687',
    write: (bytes) => written.push(bytes),
    close: () => {
      closed = true
    },
  })
  let at = 0
  for (let i = 0; at < stream.length; i++) {
    const size = (input.pieces[i % input.pieces.length] as number) * 7
    connection.receive(stream.subarray(at, at + size))
    at += size
    await Promise.resolve()
  }
  await new Promise((resolve) => setImmediate(resolve))
  connection.closed()
  const out = Buffer.concat(written)
  if (out.length === 0) return
  // The handshake answer: 4 bytes, or the manifest offer (10 bytes).
  const manifest = out.length >= 4 && out[3] === 0xff
  checkResponses(out, manifest ? 10 : 4)
  // A connection that went on past a broken message would have answered it: every close is one the
  // connection chose (end of handshake, malformed input, GOODBYE, refused auth).
  invariant(closed || stream.length > 0, 'an empty stream closed nothing')
}

async function checkRoundTrip(value: PackValue): Promise<void> {
  const packer = new Packer()
  packer.pack(value)
  const back = new Unpacker(packer.finish(), { ...DEFAULT_UNPACK_LIMITS, maxDepth: 1000 }).unpack()
  const same = (a: PackValue, b: PackValue): boolean => {
    if (typeof a === 'number' && typeof b === 'number') return Object.is(a, b)
    if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.from(a).equals(Buffer.from(b))
    if (Array.isArray(a) && Array.isArray(b))
      return a.length === b.length && a.every((x, i) => same(x, b[i] as PackValue))
    if (a instanceof Map && b instanceof Map)
      return a.size === b.size && [...a].every(([k, v]) => b.has(k) && same(v, b.get(k) as PackValue))
    if (a instanceof Structure && b instanceof Structure)
      return a.signature === b.signature && same(a.fields, b.fields)
    return a === b
  }
  invariant(same(value, back), 'a PackStream value did not round-trip')
}

export const boltTarget: FuzzTarget<{ wire: WireCase; value: PackValue }> = {
  name: 'bolt-wire',
  description:
    'Bolt client byte streams (handshakes incl. manifest, chunked requests from arbitrary PackStream values, mutated and split at random) against the connection state machine, and PackStream round trips',
  async prepare() {
    return {
      arbitrary: fc.record({ wire: wireCase, value: packValue }),
      check: async ({ wire, value }) => {
        await checkRoundTrip(value)
        await checkWire(wire)
      },
      corpus: 'generated (PackStream values and Bolt requests)',
    }
  },
}
