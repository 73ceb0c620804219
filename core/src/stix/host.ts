import type { GraphReader } from '../graph/types.js'
import type { GraphAccess } from '../kernel/types.js'
import type { StixVersions } from './versions.js'

/** What STIX import, validation and export need of the engine they run in. */
export interface StixHost extends Pick<GraphAccess, 'transact' | 'transactInSlices' | 'readGraph'> {
  /** The workspace graph as of a snapshot boundary (`snapshot--current`: the published graph). */
  readAt<T>(workspaceId: string, snapshotId: string, fn: (reader: GraphReader) => T): Promise<T>
  sessions: { assertExists(sessionId: string): void }
  explorer: { snapshot(sessionId: string, label?: string): Promise<{ boundary_id: string }> }
  /** The versions ledger every import records into (date added, versions the graph no longer holds). */
  readonly stixVersions: StixVersions
}
