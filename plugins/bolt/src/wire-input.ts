import { ChunkingError, Dechunker } from './chunking.js'
import {
  answerHandshake,
  type BoltVersion,
  HANDSHAKE_BYTES,
  HandshakeError,
  readManifestPick,
} from './handshake.js'
import { REQUEST_NAMES, type RequestMessage } from './messages.js'
import { Structure } from './packstream/structure.js'
import { UnpackError, Unpacker, type UnpackLimits } from './packstream/unpacker.js'

export interface WireInputHooks {
  /** Bytes the handshake answers with. */
  reply(bytes: Buffer): void
  /** The version agreed on (classic answer or manifest pick). */
  agreed(version: BoltVersion): void
  message(message: RequestMessage): void
  /** The input cannot go on (no common version, malformed or oversized message): the connection ends. */
  broken(reason: string): void
}

/**
 * What a client sends, in order: the handshake (the classic answer, or the manifest offer and the client's
 * pick), then chunked messages, each decoded from PackStream within the limits. Knows no state machine.
 */
export class WireInput {
  private phase: 'preamble' | 'manifest' | 'messages' | 'stopped' = 'preamble'
  private pending: Buffer = Buffer.alloc(0)
  private readonly dechunker: Dechunker

  constructor(
    maxMessageBytes: number,
    private readonly limits: UnpackLimits,
    private readonly hooks: WireInputHooks,
  ) {
    this.dechunker = new Dechunker(maxMessageBytes)
  }

  /** No more input is read (the connection ended). */
  stop(): void {
    this.phase = 'stopped'
  }

  get stopped(): boolean {
    return this.phase === 'stopped'
  }

  receive(data: Buffer): void {
    if (this.stopped) return
    try {
      if (this.phase !== 'messages') {
        this.pending = this.pending.length === 0 ? data : Buffer.concat([this.pending, data])
        if (!this.negotiate()) return
        data = this.pending
        this.pending = Buffer.alloc(0)
        if (data.length === 0) return
      }
      for (const bytes of this.dechunker.feed(data)) {
        // A message may end the connection (GOODBYE, a malformed one): what follows it is not read.
        if (this.stopped) return
        this.decode(bytes)
      }
    } catch (error) {
      if (!(error instanceof HandshakeError || error instanceof ChunkingError)) throw error
      this.fail(error.message)
    }
  }

  /** Handshake phases; true once messages follow (what is left of `pending` is theirs). */
  private negotiate(): boolean {
    if (this.phase === 'preamble') {
      if (this.pending.length < HANDSHAKE_BYTES) return false
      const answer = answerHandshake(this.pending.subarray(0, HANDSHAKE_BYTES))
      this.pending = this.pending.subarray(HANDSHAKE_BYTES)
      this.hooks.reply(answer.reply)
      if (answer.kind === 'none') {
        this.fail(answer.reason)
        return false
      }
      if (answer.kind === 'version') {
        this.hooks.agreed(answer.version)
        this.phase = 'messages'
        return true
      }
      this.phase = 'manifest'
    }
    const pick = readManifestPick(this.pending)
    if ('incomplete' in pick) return false
    this.hooks.agreed(pick.version)
    this.pending = this.pending.subarray(pick.consumed)
    this.phase = 'messages'
    return true
  }

  private decode(bytes: Buffer): void {
    let value: ReturnType<Unpacker['unpack']>
    try {
      value = new Unpacker(bytes, this.limits).unpack()
    } catch (error) {
      if (!(error instanceof UnpackError)) throw error
      this.fail(`malformed message: ${error.message}`)
      return
    }
    if (!(value instanceof Structure)) {
      this.fail('malformed message: not a structure')
      return
    }
    this.hooks.message({
      signature: value.signature,
      name: REQUEST_NAMES[value.signature] ?? 'UNKNOWN',
      fields: value.fields,
    })
  }

  private fail(reason: string): void {
    this.phase = 'stopped'
    this.hooks.broken(reason)
  }
}
