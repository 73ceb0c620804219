import type { NodeRecord, PropertyValue } from './types.js'

/**
 * A stored node's record in a transaction that adds edges to it. Its adjacency lists are copied from the
 * store's only when something in the transaction reads them: a bulk load that adds an edge or two to
 * thousands of nodes keeps a short list of the new ids per node instead of copying every list it touches
 * (the store applies the edges again at publish; these records are then dropped).
 */
export class AddedEdges implements NodeRecord {
  private ownOut: number[] | undefined
  private ownIn: number[] | undefined
  /** Made on the first edge each way: a load adds edges to most nodes one way only. */
  private addedOut: number[] | undefined
  private addedIn: number[] | undefined

  constructor(
    readonly id: number,
    public labels: number[],
    public props: Map<number, PropertyValue>,
    private readonly baseOut: readonly number[],
    private readonly baseIn: readonly number[],
  ) {}

  /** The node's outgoing ids, the transaction's own list from the first read on. */
  get out(): number[] {
    this.ownOut ??= this.addedOut === undefined ? this.baseOut.slice() : this.baseOut.concat(this.addedOut)
    return this.ownOut
  }

  set out(list: number[]) {
    this.ownOut = list
  }

  get in(): number[] {
    this.ownIn ??= this.addedIn === undefined ? this.baseIn.slice() : this.baseIn.concat(this.addedIn)
    return this.ownIn
  }

  set in(list: number[]) {
    this.ownIn = list
  }

  addOut(id: number): void {
    if (this.ownOut !== undefined) this.ownOut.push(id)
    else if (this.addedOut === undefined) this.addedOut = [id]
    else this.addedOut.push(id)
  }

  addIn(id: number): void {
    if (this.ownIn !== undefined) this.ownIn.push(id)
    else if (this.addedIn === undefined) this.addedIn = [id]
    else this.addedIn.push(id)
  }
}
