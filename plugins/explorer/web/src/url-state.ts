/**
 * A view is a link: the session, the boundary, the compared boundary, the selected record and the budgets live
 * in the query string, so a view can be bookmarked, shared and opened directly. The token never does.
 */
export interface ViewState {
  session: string | null
  /** 'current' or a snapshot/timeshot id. */
  boundary: string
  /** A second boundary to diff against, or null. */
  compare: string | null
  /** A node or relationship id. */
  select: string | null
  showStopped: boolean
  maxNodes: number | null
  maxRelationships: number | null
  maxPayloadBytes: number | null
}

const positive = (text: string | null): number | null => {
  if (text === null || !/^\d{1,9}$/.test(text)) return null
  const n = Number(text)
  return n > 0 ? n : null
}
const nonBlank = (text: string | null) => (text === null || text.trim() === '' ? null : text.trim())

export function parseViewState(search: string): ViewState {
  const q = new URLSearchParams(search)
  return {
    session: nonBlank(q.get('session')),
    boundary: nonBlank(q.get('boundary')) ?? 'current',
    compare: nonBlank(q.get('compare')),
    select: nonBlank(q.get('select')),
    showStopped: q.get('stopped') === '1',
    maxNodes: positive(q.get('max_nodes')),
    maxRelationships: positive(q.get('max_relationships')),
    maxPayloadBytes: positive(q.get('max_payload_bytes')),
  }
}

/** The query string of a view (without '?'), in a fixed order and without defaults, so links stay short. */
export function formatViewState(state: ViewState): string {
  const q = new URLSearchParams()
  if (state.session !== null) q.set('session', state.session)
  if (state.session !== null) q.set('boundary', state.boundary)
  if (state.compare !== null) q.set('compare', state.compare)
  if (state.select !== null) q.set('select', state.select)
  if (state.showStopped) q.set('stopped', '1')
  if (state.maxNodes !== null) q.set('max_nodes', String(state.maxNodes))
  if (state.maxRelationships !== null) q.set('max_relationships', String(state.maxRelationships))
  if (state.maxPayloadBytes !== null) q.set('max_payload_bytes', String(state.maxPayloadBytes))
  return q.toString()
}

/** The graph query for a boundary: its kind is read from the id's own prefix (`snapshot--…`, `timeshot--…`). */
export function boundaryQuery(boundary: string): Record<string, string> {
  if (boundary === 'current') return { boundary_kind: 'current' }
  const kind = boundary.startsWith('snapshot--') ? 'snapshot' : 'timeshot'
  return { boundary_kind: kind, boundary_id: boundary }
}
