import type { BeginOptions, CypherCall, ExplicitTransaction } from '@service/core'
import type { CypherResult } from '@service/core/cypher'
import type { BoltFailure } from './failures.js'
import type { PackValue } from './packstream/structure.js'

/** One server of a routing table. */
export interface RoutingServer {
  addresses: string[]
  role: 'ROUTE' | 'READ' | 'WRITE'
}

/**
 * Everything the Bolt door asks of the service, behind one small interface (as GrafeoDB's boltr keeps Bolt
 * behind a backend trait): the state machine knows nothing of the engine, and tests drive it with a fake.
 */
export interface BoltBackend {
  /** LOGON (or a Bolt 5.0 HELLO) credentials: null when accepted, else the failure to answer. */
  authenticate(auth: Map<string, PackValue>): BoltFailure | null
  /** Takes one request from the rate limit shared with the bearer routes; null when admitted. */
  admit(): BoltFailure | null
  /** The workspace a Bolt database name stands for (`neo4j` or none: the default workspace). */
  workspaceOf(database: string | undefined): string
  /** An auto-commit statement (rows detached, or a cursor when `rows: 'stream'` and the read streams). */
  run(call: CypherCall): Promise<CypherResult>
  /**
   * Runs one slice of a streamed result that reads the published graph where such reads are allowed (the
   * engine's visibility gate: no commit that is not yet durable is seen); absent, the slice runs at once.
   */
  readSlice?<T>(workspaceId: string, slice: () => T): Promise<T>
  begin(options: BeginOptions): ExplicitTransaction
  /** Waits until every commit the bookmarks name is visible here; throws the failure otherwise. */
  awaitBookmarks(bookmarks: readonly string[]): Promise<void>
  /** The bookmark naming the newest durable commit. */
  bookmark(): string
  /** Routing servers for a database, given the address the client used. */
  routingTable(database: string | undefined, clientAddress: string): RoutingServer[]
}

/** A bookmark is the commit sequence, as `x-service-commit-seq` carries it. */
export const BOOKMARK_PREFIX = 'commit-seq:'

export const bookmarkOf = (sequence: number): string => `${BOOKMARK_PREFIX}${sequence}`

/** The highest sequence among the bookmarks (0 for none); null when one is not ours. */
export function bookmarkSequence(bookmarks: readonly string[]): number | null {
  let highest = 0
  for (const bookmark of bookmarks) {
    if (!bookmark.startsWith(BOOKMARK_PREFIX)) return null
    const digits = bookmark.slice(BOOKMARK_PREFIX.length)
    if (!/^\d{1,15}$/.test(digits)) return null
    highest = Math.max(highest, Number(digits))
  }
  return highest
}
