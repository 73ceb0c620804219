import type { CreatedNodeLookup } from './commit.js'
import type { NodeRecord } from './types.js'

/**
 * The nodes a transaction created, in an array by id: a transaction's new ids are consecutive, so a bulk
 * create of thousands of nodes fills a list instead of growing two hash maps. Deleted ones become null.
 */
export class CreatedList implements CreatedNodeLookup {
  private first = -1
  private readonly list: (NodeRecord | null)[] = []
  size = 0

  add(id: number, node: NodeRecord): void {
    if (this.first < 0) this.first = id
    const at = id - this.first
    // Ids are handed out in order; a gap (another workspace took ids meanwhile) is filled with nulls.
    while (this.list.length < at) this.list.push(null)
    this.list[at] = node
    this.size++
  }

  /** The node created under `id`, null when it was deleted since, undefined when it was not created here. */
  find(id: number): NodeRecord | null | undefined {
    if (this.first < 0 || id < this.first) return undefined
    const node = this.list[id - this.first]
    // A null in the list is a deleted node only if it was created here; gaps were never created here.
    return node === null && !this.deleted?.has(id) ? undefined : node
  }

  /** The lookup publishing uses: deleted and foreign ids alike are undefined. */
  get(id: number): NodeRecord | undefined {
    return this.find(id) ?? undefined
  }

  /** Made on the first delete: most transactions delete nothing. */
  private deleted: Set<number> | undefined

  /** Marks a created node deleted; false when this transaction did not create it. */
  delete(id: number): boolean {
    const node = this.find(id)
    if (node === undefined || node === null) return false
    this.list[id - this.first] = null
    this.deleted ??= new Set()
    this.deleted.add(id)
    this.size--
    return true
  }

  *ids(): Iterable<number> {
    for (let i = 0; i < this.list.length; i++) if (this.list[i] !== null) yield this.first + i
  }
}
