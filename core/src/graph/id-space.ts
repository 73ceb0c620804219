/**
 * Node and relationship ids handed out across all the workspaces of one engine: an id names one record in one
 * workspace only, so an id from another workspace is a hidden target (NOT_FOUND), never a record of this one.
 * Ids stay dense per engine, not per workspace: a workspace's per-record arrays are paged (paged-array.ts), so
 * they hold only the pages of ids it wrote.
 * Directories written before keep their ids (recovery raises the space above every recovered id).
 */
export class IdSpace {
  node = 0
  rel = 0

  /** The next node id for a workspace whose own next id is `local` (taken: later calls get higher ids). */
  takeNode(local: number): number {
    const id = Math.max(local, this.node)
    this.node = id + 1
    return id
  }

  takeRel(local: number): number {
    const id = Math.max(local, this.rel)
    this.rel = id + 1
    return id
  }
}
