const NO_LABELS = Object.freeze([]) as unknown as number[]

/** Distinct label lists kept for sharing; past this, a new list is frozen but not kept. */
const MAX_SHARED = 4096

/**
 * One shared, frozen array per distinct label list: a graph has a handful, and an array per node was one
 * object in five of an edgeless node. Label changes replace a node's list (in the store and in transactions),
 * never edit it, so a list can be shared and held by reference.
 */
export class LabelSets {
  private readonly shared = new Map<string, number[]>()
  private readonly singles: (number[] | undefined)[] = []

  of(labels: readonly number[]): number[] {
    if (labels.length === 1) {
      const label = labels[0] as number
      const known = this.singles[label]
      if (known !== undefined) return known
      const single = Object.freeze([label]) as number[]
      this.singles[label] = single
      return single
    }
    if (labels.length === 0) return NO_LABELS
    const key = labels.join(',')
    let list = this.shared.get(key)
    if (list === undefined) {
      list = Object.freeze(labels.slice()) as number[]
      if (this.shared.size < MAX_SHARED) this.shared.set(key, list)
    }
    return list
  }
}
