/**
 * Ids filed under keys, as the bare id while a key has one (most keys: unique names, stix ids) and as a Set
 * from the second on: a Set per key cost about 200 bytes. Used by the property index and the seed index's
 * exact-id table.
 */
export type IdPostings = number | Set<number>

export function addPosting<K>(table: Map<K, IdPostings>, key: K, id: number): void {
  const postings = table.get(key)
  if (postings === undefined) table.set(key, id)
  else if (typeof postings !== 'number') postings.add(id)
  else if (postings !== id) table.set(key, new Set([postings, id]))
}

export function removePosting<K>(table: Map<K, IdPostings>, key: K, id: number): void {
  const postings = table.get(key)
  if (postings === undefined) return
  if (typeof postings === 'number') {
    if (postings === id) table.delete(key)
  } else {
    postings.delete(id)
    if (postings.size === 0) table.delete(key)
  }
}
