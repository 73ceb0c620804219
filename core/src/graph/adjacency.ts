/**
 * The adjacency of a node without relationships, shared: two empty arrays per node were a fifth of the
 * heap of an edgeless graph. Frozen, so a stray push fails loudly; the store replaces it on the first edge.
 */
export const NO_RELS = Object.freeze([]) as unknown as number[]

export function removeId(list: number[], id: number): void {
  // Recently added relationships are the likeliest to be removed, so search from the end.
  const at = list.lastIndexOf(id)
  if (at >= 0) list.splice(at, 1)
}
