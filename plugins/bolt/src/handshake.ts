/**
 * The Bolt handshake. The client opens with the magic preamble and four proposals of 4 bytes each,
 * `[0, range, minor, major]` (range: how many minors below `minor` it also speaks). A server answers the
 * version it picked, or zeros for none. Proposal 255.1 asks for manifest negotiation (Bolt 5.7+ clients):
 * the server then answers 255.1, the list of version ranges it speaks and its capabilities, and the client
 * replies with its pick.
 */

export const BOLT_MAGIC = 0x6060b017
export const HANDSHAKE_BYTES = 20

export interface BoltVersion {
  major: number
  minor: number
}

/** What this server speaks: Bolt 5.0 to 5.8. */
export const SUPPORTED_MAJOR = 5
export const MIN_MINOR = 0
export const MAX_MINOR = 8

const MANIFEST_V1 = { major: 0xff, minor: 1 }

export type HandshakeAnswer =
  | { kind: 'version'; version: BoltVersion; reply: Buffer }
  | { kind: 'manifest'; reply: Buffer }
  | { kind: 'none'; reply: Buffer; reason: string }

export class HandshakeError extends Error {
  override readonly name = 'HandshakeError'
}

/** Reads the 20 opening bytes and decides the answer. */
export function answerHandshake(opening: Buffer): HandshakeAnswer {
  if (opening.length < HANDSHAKE_BYTES) throw new HandshakeError('the handshake is shorter than 20 bytes')
  if (opening.readUInt32BE(0) !== BOLT_MAGIC) {
    const http = /^(GET|POST|PUT|HEAD|DELETE|OPTIONS|PATCH) /.test(opening.subarray(0, 8).toString('latin1'))
    throw new HandshakeError(
      http
        ? 'an HTTP request reached the Bolt port (HTTP is served on the HTTP port)'
        : 'the connection did not open with the Bolt preamble',
    )
  }
  for (let i = 0; i < 4; i++) {
    const at = 4 + i * 4
    const range = opening[at + 1] as number
    const minor = opening[at + 2] as number
    const major = opening[at + 3] as number
    if (major === MANIFEST_V1.major && minor === MANIFEST_V1.minor) {
      return { kind: 'manifest', reply: manifestOffer() }
    }
    const picked = pick(major, minor, range)
    if (picked !== null) {
      return { kind: 'version', version: picked, reply: versionBytes(picked) }
    }
  }
  return {
    kind: 'none',
    reply: Buffer.alloc(4),
    reason: `no proposed version is one this server speaks (Bolt ${SUPPORTED_MAJOR}.${MIN_MINOR}-${SUPPORTED_MAJOR}.${MAX_MINOR})`,
  }
}

/** The highest version inside a proposal that this server speaks, or null. */
function pick(major: number, minor: number, range: number): BoltVersion | null {
  if (major !== SUPPORTED_MAJOR) return null
  const top = Math.min(minor, MAX_MINOR)
  const bottom = Math.max(minor - range, MIN_MINOR)
  return top >= bottom ? { major, minor: top } : null
}

function versionBytes(version: BoltVersion): Buffer {
  return Buffer.from([0, 0, version.minor, version.major])
}

/** 255.1, one range (5.8 down to 5.0), no capabilities. */
function manifestOffer(): Buffer {
  return Buffer.concat([
    Buffer.from([0, 0, MANIFEST_V1.minor, MANIFEST_V1.major]),
    encodeVarInt(1),
    Buffer.from([0, MAX_MINOR - MIN_MINOR, MAX_MINOR, SUPPORTED_MAJOR]),
    encodeVarInt(0),
  ])
}

/** The client's pick after a manifest: 4 bytes of version, then its capabilities as a varint. */
export function readManifestPick(
  bytes: Buffer,
): { version: BoltVersion; consumed: number } | { incomplete: true } {
  if (bytes.length < 5) return { incomplete: true }
  const minor = bytes[2] as number
  const major = bytes[3] as number
  const capabilities = decodeVarInt(bytes, 4)
  if (capabilities === null) return { incomplete: true }
  if (major !== SUPPORTED_MAJOR || minor < MIN_MINOR || minor > MAX_MINOR) {
    throw new HandshakeError(`the client picked Bolt ${major}.${minor}, which this server did not offer`)
  }
  return { version: { major, minor }, consumed: 4 + capabilities.length }
}

/** Unsigned LEB128: 7 bits a byte, lowest first, high bit set on all but the last. */
export function encodeVarInt(value: number): Buffer {
  const bytes: number[] = []
  let rest = value
  do {
    let byte = rest % 128
    rest = Math.floor(rest / 128)
    if (rest > 0) byte |= 0x80
    bytes.push(byte)
  } while (rest > 0)
  return Buffer.from(bytes)
}

/** Null when the bytes end inside the varint; at most 5 bytes (35 bits) are read. */
export function decodeVarInt(bytes: Buffer, from: number): { value: number; length: number } | null {
  let value = 0
  let scale = 1
  for (let i = 0; i < 5; i++) {
    const byte = bytes[from + i]
    if (byte === undefined) return null
    value += (byte & 0x7f) * scale
    if ((byte & 0x80) === 0) return { value, length: i + 1 }
    scale *= 128
  }
  throw new HandshakeError('a varint in the handshake is longer than 5 bytes')
}
