/**
 * The TAXII collection registry: each published workspace is a collection whose id is a UUIDv4 assigned
 * on first publication and kept as ledger state (committed through the WAL, carried by checkpoints), so a
 * client's collection URL survives restarts and recovery. The first id recorded for a workspace wins, on
 * publish and on replay alike.
 */
import { randomUUID } from 'node:crypto'
import type { Ledger, LedgerWriter } from '../kernel/ledger.js'
import type { StixVersions } from '../stix/versions.js'

export const TAXII_COLLECTIONS_LEDGER = 'taxii.collections'

interface CollectionEntry {
  w: string
  id: string
}

class CollectionIds implements Ledger<CollectionEntry> {
  readonly name = TAXII_COLLECTIONS_LEDGER
  readonly byWorkspace = new Map<string, string>()
  readonly byId = new Map<string, string>()

  apply(entry: CollectionEntry): void {
    if (this.byWorkspace.has(entry.w) || this.byId.has(entry.id)) return
    this.byWorkspace.set(entry.w, entry.id)
    this.byId.set(entry.id, entry.w)
  }

  *image(): Iterable<CollectionEntry> {
    for (const [w, id] of this.byWorkspace) yield { w, id }
  }

  reset(): void {
    this.byWorkspace.clear()
    this.byId.clear()
  }
}

/** What the registry needs of the engine: a transaction that commits ledger entries. */
export interface CollectionsHost {
  transact(
    workspaceId: string,
    fn: (tx: unknown, store: unknown, ledger: LedgerWriter) => void,
  ): Promise<unknown>
}

export class TaxiiCollections {
  private readonly ids = new CollectionIds()
  /** Assignments run one at a time, so two first listings never record two ids for a workspace. */
  private assigning: Promise<unknown> = Promise.resolve()

  constructor(
    private readonly host: CollectionsHost,
    /** The versions ledger: which workspaces hold STIX objects, and what they hold. */
    readonly versions: StixVersions,
  ) {}

  get ledgers(): Ledger[] {
    return [this.ids]
  }

  idOf(workspaceId: string): string | undefined {
    return this.ids.byWorkspace.get(workspaceId)
  }

  workspaceOf(collectionId: string): string | undefined {
    return this.ids.byId.get(collectionId)
  }

  /** Collection ids of `workspaceIds`, assigning (durably) those published for the first time. */
  async publish(workspaceIds: readonly string[]): Promise<Map<string, string>> {
    const run = this.assigning.then(async () => {
      const fresh = workspaceIds.filter((w) => !this.ids.byWorkspace.has(w))
      const first = fresh[0]
      if (first !== undefined)
        await this.host.transact(first, (_tx, _store, ledger) => {
          for (const w of fresh)
            ledger.write(this.ids.name, { w, id: randomUUID() } satisfies CollectionEntry)
        })
    })
    this.assigning = run.catch(() => {})
    await run
    return new Map(workspaceIds.map((w) => [w, this.ids.byWorkspace.get(w) as string]))
  }
}
