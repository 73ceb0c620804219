import { IdSpace } from './id-space.js'
import { GraphStore } from './store.js'

export const DEFAULT_WORKSPACE_ID = 'workspace--http-default'
/** The default workspace's name where Neo4j's is expected (Bolt database, SHOW DATABASES). */
export const DEFAULT_DATABASE_NAME = 'neo4j'

/** One graph store per workspace, created on first use. */
export class GraphCatalog {
  private readonly stores = new Map<string, GraphStore>()
  /** One id space for every workspace: ids never collide across workspaces. */
  private readonly ids = new IdSpace()

  workspace(id: string = DEFAULT_WORKSPACE_ID): GraphStore {
    let store = this.stores.get(id)
    if (store === undefined) {
      store = new GraphStore(this.ids)
      this.stores.set(id, store)
    }
    return store
  }

  has(id: string): boolean {
    return this.stores.has(id)
  }

  /** Drops every workspace (the kernel rebuilds them from the durable state after a log failure). */
  reset(): void {
    this.stores.clear()
  }

  workspaceIds(): string[] {
    return [...this.stores.keys()]
  }
}
