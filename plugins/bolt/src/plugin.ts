import { SERVICE_NAME, SERVICE_VERSION } from '@service/core'
import { NEO4J_COMPATIBLE_VERSION } from '@service/core/cypher'
import type { DoorAuth } from '@service/plugin-auth'
import { ENGINE_PLUGIN } from '@service/plugin-engine'
import type { Operations } from '@service/plugin-operations'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { engineBackend } from './engine-backend.js'
import { BoltListener } from './listener.js'
import { boltMetrics } from './metrics.js'
import { DEFAULT_UNPACK_LIMITS } from './packstream/unpacker.js'

export interface BoltPluginOptions {
  host: string
  port: number
  tls: { key: Buffer; cert: Buffer } | null
  maxConnections: number
  idleTimeoutMs: number
  maxMessageBytes: number
  /** The handler budget (SERVICE_HTTP_REQUEST_TIMEOUT_MS): no statement runs longer, whatever tx_timeout asks. */
  requestTimeoutMs: number
  txIdleTimeoutMs: number
  readYourWritesTimeoutMs: number
  /** Bolt addresses of read followers, for ROUTE on a PostgreSQL primary. */
  readAddresses: string[]
}

/** The Bolt door as the server holds it: `listen()` after the HTTP server listens; closed with the app. */
export interface BoltDoor {
  listen(): Promise<number>
  readonly port: number | null
  readonly connections: number
}

declare module 'fastify' {
  interface FastifyInstance {
    bolt: BoltDoor
  }
}

/**
 * `server` in HELLO: drivers and tools check for `Neo4j/5`; the rest names this product. The Neo4j version is
 * the one `dbms.components()` reports.
 */
export const SERVER_AGENT = `Neo4j/${NEO4J_COMPATIBLE_VERSION} (compatible; ${SERVICE_NAME}/${SERVICE_VERSION})`

/** Requests logged at info like an HTTP request: the statements and the transaction steps. */
const ACCESS_LOGGED = new Set(['RUN', 'BEGIN', 'COMMIT', 'ROLLBACK'])

async function boltPlugin(app: FastifyInstance, options: BoltPluginOptions): Promise<void> {
  const log = app.log.child({ door: 'bolt' })
  // Read from the auth and operations plugins (declared dependencies below).
  const auth: DoorAuth = app.doorAuth
  const operations: Operations = app.operations
  let listener: BoltListener | null = null
  const metrics = boltMetrics(operations.metrics.registry, () => listener?.connections ?? 0)
  listener = new BoltListener({
    host: options.host,
    port: options.port,
    tls: options.tls,
    maxConnections: options.maxConnections,
    idleTimeoutMs: options.idleTimeoutMs,
    maxMessageBytes: options.maxMessageBytes,
    unpackLimits: DEFAULT_UNPACK_LIMITS,
    requestTimeoutMs: options.requestTimeoutMs,
    txIdleTimeoutMs: options.txIdleTimeoutMs,
    serverAgent: SERVER_AGENT,
    backend: engineBackend({
      engine: app.engine,
      auth,
      readYourWritesTimeoutMs: options.readYourWritesTimeoutMs,
      followerAddresses: () => options.readAddresses,
    }),
    events: {
      ...metrics,
      opened: (connection_id, remote) => {
        metrics.opened?.(connection_id, remote)
        log.debug({ event: 'bolt_connection_opened', connection_id, remote }, 'bolt connection opened')
      },
      refused: (remote) => {
        metrics.refused?.(remote)
        log.warn(
          { event: 'bolt_connection_refused', remote },
          'bolt connection refused: too many connections',
        )
      },
      serverError: (err) => log.warn({ event: 'bolt_listener_error', err }, 'bolt listener error'),
      internalError: (message, err) =>
        log.error({ event: 'bolt_request_failed', message, err }, 'bolt request failed inside the server'),
      closed: (connection_id, reason) =>
        log.debug({ event: 'bolt_connection_closed', connection_id, reason }, 'bolt connection closed'),
      // One access line per statement or transaction step at info, as HTTP logs one per request; the rest
      // (HELLO, PULL pages, RESET…) at debug, and every failure at info.
      handled: (message, ms, code) => {
        const level = code !== null || ACCESS_LOGGED.has(message) ? 'info' : 'debug'
        log[level](
          { event: 'bolt_request', message, ms: Math.round(ms * 100) / 100, code },
          'bolt request completed',
        )
      },
    },
  })
  const door: BoltDoor = {
    listen: () => (listener as BoltListener).listen(),
    get port() {
      return listener?.port ?? null
    },
    get connections() {
      return listener?.connections ?? 0
    },
  }
  app.decorate('bolt', door)
  operations.sources.bolt = () => ({
    enabled: true,
    listening: door.port !== null,
    port: door.port,
    tls: options.tls !== null,
    connections: door.connections,
    max_connections: options.maxConnections,
  })
  app.addHook('onClose', async () => {
    await listener?.close()
  })
}

export default fp(boltPlugin, {
  name: '@service/plugin-bolt',
  fastify: '5.x',
  dependencies: ['@service/plugin-auth', '@service/plugin-operations', ENGINE_PLUGIN],
})
