import type { Projection } from './types.js'

export type DiffState = 'added' | 'removed' | 'changed'

export interface ProjectionDiff {
  nodes: Map<string, DiffState>
  relationships: Map<string, DiffState>
  counts: Record<DiffState, number>
}

/**
 * What changed from `before` to `after`, record by record: present only after (added), only before (removed),
 * in both with another version (changed; `version_id` names the version a boundary saw).
 */
export function diffProjections(before: Projection, after: Projection): ProjectionDiff {
  const counts: Record<DiffState, number> = { added: 0, removed: 0, changed: 0 }
  const compare = (
    a: readonly { id: string; version_id: string }[],
    b: readonly { id: string; version_id: string }[],
  ) => {
    const out = new Map<string, DiffState>()
    const old = new Map(a.map((r) => [r.id, r.version_id]))
    for (const r of b) {
      const was = old.get(r.id)
      const state: DiffState | null = was === undefined ? 'added' : was !== r.version_id ? 'changed' : null
      if (state !== null) {
        out.set(r.id, state)
        counts[state]++
      }
      old.delete(r.id)
    }
    for (const id of old.keys()) {
      out.set(id, 'removed')
      counts.removed++
    }
    return out
  }
  return {
    nodes: compare(before.nodes, after.nodes),
    relationships: compare(before.relationships, after.relationships),
    counts,
  }
}
