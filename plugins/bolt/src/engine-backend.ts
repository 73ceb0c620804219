import { DEFAULT_DATABASE_NAME, DEFAULT_WORKSPACE_ID, type Engine, EngineError } from '@service/core'
import { type BoltBackend, bookmarkOf, bookmarkSequence, type RoutingServer } from './backend.js'
import { type BoltFailure, Failures } from './failures.js'
import type { PackValue } from './packstream/structure.js'

/** The door's view of authentication: the same token and rate limit as the bearer routes. */
export interface BoltAuth {
  /** Null in local-insecure mode (loopback only): any credentials, or none, are accepted. */
  tokenMatches: ((candidate: string) => boolean) | null
  /** One request from the bearer routes' bucket. */
  take(): { ok: true } | { ok: false; retryAfterMs: number }
}

export interface EngineBackendOptions {
  engine: Engine
  auth: BoltAuth
  /** How long a statement presenting bookmarks waits for their commit. */
  readYourWritesTimeoutMs: number
  /** The followers' Bolt addresses when this is a PostgreSQL primary with read followers. */
  followerAddresses?: () => string[]
}

/** The Bolt door over the engine: every rule is the engine's; this only translates. */
export function engineBackend(options: EngineBackendOptions): BoltBackend {
  const { engine, auth } = options
  return {
    authenticate(token: Map<string, PackValue>): BoltFailure | null {
      if (auth.tokenMatches === null) return null
      const scheme = token.get('scheme')
      const credentials = token.get('credentials')
      // `basic` with any user name and the bearer token as password, or `bearer` with the token.
      if ((scheme === 'basic' || scheme === 'bearer') && typeof credentials === 'string') {
        if (auth.tokenMatches(credentials)) return null
      }
      return Failures.unauthorized()
    },
    admit() {
      const taken = auth.take()
      return taken.ok ? null : Failures.rateLimited(taken.retryAfterMs)
    },
    workspaceOf(database) {
      return database === undefined || database === '' || database === DEFAULT_DATABASE_NAME
        ? DEFAULT_WORKSPACE_ID
        : database
    },
    run: (call) => engine.cypher(call),
    readSlice: (workspaceId, slice) => engine.readGraph(workspaceId, slice),
    begin: (beginOptions) => engine.beginTransaction(beginOptions),
    async awaitBookmarks(bookmarks) {
      if (bookmarks.length === 0) return
      const wanted = bookmarkSequence(bookmarks)
      // A bookmark of another server (or none of ours) says nothing we can wait for.
      if (wanted === null || wanted === 0) return
      if (await engine.waitForSequence(wanted, options.readYourWritesTimeoutMs)) return
      const seen = engine.replication()?.applied_sequence ?? engine.durableSequence()
      throw new EngineError(
        'STORAGE_FOLLOWER_LAGGING',
        `this server has applied commits up to ${seen}, not yet ${wanted}, after waiting ${options.readYourWritesTimeoutMs} ms`,
      )
    },
    bookmark: () => bookmarkOf(engine.durableSequence()),
    routingTable(_database, clientAddress): RoutingServer[] {
      const role = engine.replication()?.role
      const followers = options.followerAddresses?.() ?? []
      if (role === 'primary' && followers.length > 0) {
        return [
          { addresses: [clientAddress], role: 'ROUTE' },
          { addresses: [clientAddress], role: 'WRITE' },
          { addresses: followers, role: 'READ' },
        ]
      }
      // One node: itself in every role.
      return [
        { addresses: [clientAddress], role: 'ROUTE' },
        { addresses: [clientAddress], role: 'READ' },
        { addresses: [clientAddress], role: 'WRITE' },
      ]
    },
  }
}
