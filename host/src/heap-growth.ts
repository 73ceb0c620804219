import { setFlagsFromString } from 'node:v8'

/**
 * Caps how far V8 lets the old generation grow past the live heap before the next full collection. When
 * collections are fast next to the allocation rate, V8 picks a factor of up to 4: a server whose live heap
 * is a 500 MB graph then sits at ~2 GB of RSS after a bulk import, three quarters of it garbage waiting
 * for a collection. A fixed factor of 1 + percent/100 trades a few more full collections for that memory.
 * The flag is read at every collection, so setting it at start-up (before the graph loads) is enough;
 * 0 leaves V8's own heuristic.
 */
export function capHeapGrowth(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`)
}
