import { createServer as createTcpServer, type Server, type Socket } from 'node:net'
import { createServer as createTlsServer } from 'node:tls'
import type { BoltBackend } from './backend.js'
import { BoltConnection, type ConnectionEvents } from './connection.js'
import { Failures } from './failures.js'
import type { UnpackLimits } from './packstream/unpacker.js'

export interface ListenerOptions {
  host: string
  port: number
  tls: { key: Buffer; cert: Buffer } | null
  maxConnections: number
  /** A connection with no bytes in either direction for this long is closed. */
  idleTimeoutMs: number
  maxMessageBytes: number
  unpackLimits: UnpackLimits
  requestTimeoutMs: number
  txIdleTimeoutMs: number
  serverAgent: string
  backend: BoltBackend
  /** Per-connection events (metrics, logs). */
  events?: ListenerEvents
}

export interface ListenerEvents extends ConnectionEvents {
  opened?(connectionId: string, remote: string): void
  closed?(connectionId: string, reason: string): void
  refused?(remote: string): void
  bytes?(direction: 'in' | 'out', count: number): void
  serverError?(error: Error): void
}

/** Connections past the limit still get a clear refusal (on HELLO); past this many more, just a close. */
const REFUSING_AT_ONCE = 64

/** The Bolt listener: a TCP (or TLS) server, one BoltConnection per socket. */
export class BoltListener {
  private readonly server: Server
  private readonly sockets = new Map<Socket, BoltConnection>()
  private refusing = 0
  private counter = 0
  private boundPort: number | null = null

  constructor(private readonly options: ListenerOptions) {
    const onSocket = (socket: Socket) => this.accept(socket)
    this.server =
      options.tls === null
        ? createTcpServer({ noDelay: true }, onSocket)
        : createTlsServer({ key: options.tls.key, cert: options.tls.cert }, onSocket)
  }

  get connections(): number {
    return this.sockets.size
  }

  get port(): number | null {
    return this.boundPort
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject)
      this.server.listen({ host: this.options.host, port: this.options.port }, () => {
        this.server.off('error', reject)
        // Past the start (out of file descriptors, a TLS client that is not one): reported, never a crash.
        this.server.on('error', (error) => this.options.events?.serverError?.(error))
        this.server.on('tlsClientError', (error) => this.options.events?.serverError?.(error))
        resolve()
      })
    })
    const address = this.server.address()
    this.boundPort = typeof address === 'object' && address !== null ? address.port : this.options.port
    return this.boundPort
  }

  /**
   * Stops accepting; every connection ends once the request it is answering is answered (an open
   * transaction rolls back). The host's shutdown timeout bounds the wait.
   */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()))
    for (const connection of this.sockets.values()) connection.drain()
    await closed
  }

  private accept(socket: Socket): void {
    const remote = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`
    const events = this.options.events
    const over = this.sockets.size >= this.options.maxConnections
    if (over) {
      events?.refused?.(remote)
      if (this.refusing >= REFUSING_AT_ONCE) {
        socket.destroy()
        return
      }
      // The handshake goes through so the driver can show why: HELLO is answered with the refusal.
      this.refusing++
      socket.once('close', () => this.refusing--)
    }
    socket.setNoDelay(true)
    const connectionId = `bolt-${++this.counter}`
    const local = `${socket.localAddress ?? this.options.host}:${socket.localPort ?? this.boundPort}`
    let reason = 'closed by the client'
    const connection = new BoltConnection({
      backend: this.options.backend,
      connectionId,
      serverAgent: this.options.serverAgent,
      maxMessageBytes: this.options.maxMessageBytes,
      unpackLimits: this.options.unpackLimits,
      requestTimeoutMs: this.options.requestTimeoutMs,
      txIdleTimeoutMs: this.options.txIdleTimeoutMs,
      localAddress: local.replace(/^::ffff:/, ''),
      refusal: over ? Failures.tooManyConnections(this.options.maxConnections) : null,
      write: (bytes) => {
        events?.bytes?.('out', bytes.length)
        if (!socket.destroyed) socket.write(bytes)
      },
      drained: () =>
        socket.writableNeedDrain && !socket.destroyed
          ? new Promise<void>((resolve) => {
              const done = () => {
                socket.off('drain', done)
                socket.off('close', done)
                resolve()
              }
              socket.on('drain', done)
              socket.on('close', done)
            })
          : undefined,
      close: () => {
        socket.end()
        // A client that does not close its side is cut after a moment.
        setTimeout(() => socket.destroy(), 1000).unref()
      },
      pause: () => socket.pause(),
      resume: () => socket.resume(),
      events: {
        ...events,
        end: (why) => {
          reason = why
          events?.end?.(why)
        },
      },
    })
    if (!over) {
      this.sockets.set(socket, connection)
      events?.opened?.(connectionId, remote)
    }
    socket.setTimeout(this.options.idleTimeoutMs, () => {
      reason = `idle for ${this.options.idleTimeoutMs} ms`
      socket.destroy()
    })
    socket.on('data', (data: Buffer) => {
      events?.bytes?.('in', data.length)
      connection.receive(data)
    })
    socket.on('error', (error) => {
      reason = `socket error: ${error.message}`
    })
    socket.once('close', () => {
      connection.closed()
      if (over) return
      this.sockets.delete(socket)
      events?.closed?.(connectionId, reason)
    })
  }
}
