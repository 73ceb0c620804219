import { randomUUID } from 'node:crypto'
import { EngineError } from '../errors.js'

/** A point of a session's history that the explorer can show the graph at. */
export interface Boundary {
  boundary_id: string
  kind: 'snapshot' | 'timeshot'
  session_id: string
  workspace_id: string
  parent_id: string | null
  transaction_id: string | null
  at: string
  label: string
  /** The commit sequence the boundary pins: the graph as of this sequence. */
  sequence: number
}

export interface TimelineNode {
  boundary: Boundary
  children: TimelineNode[]
}

/**
 * The persisted lineage of boundaries per session: each new boundary is a child of the session's previous
 * one, so the lineage is acyclic by construction and replays in order.
 */
export class Timeline {
  private readonly bySession = new Map<string, Boundary[]>()
  private readonly byId = new Map<string, Boundary>()

  add(input: Omit<Boundary, 'boundary_id' | 'parent_id'> & { boundary_id?: string }): Boundary {
    const list = this.bySession.get(input.session_id) ?? []
    const boundary: Boundary = {
      ...input,
      boundary_id: input.boundary_id ?? `${input.kind}--${randomUUID()}`,
      parent_id: list.at(-1)?.boundary_id ?? null,
    }
    this.apply(boundary)
    return boundary
  }

  reset(): void {
    this.bySession.clear()
    this.byId.clear()
  }

  /** Replay of a persisted boundary (also the end of `add`). */
  apply(boundary: Boundary): void {
    if (this.byId.has(boundary.boundary_id)) return
    if (boundary.parent_id !== null && !this.byId.has(boundary.parent_id)) {
      throw new EngineError(
        'INVALID_TEMPORAL_LINEAGE',
        `boundary ${boundary.boundary_id} names an unknown parent`,
      )
    }
    let list = this.bySession.get(boundary.session_id)
    if (list === undefined) {
      list = []
      this.bySession.set(boundary.session_id, list)
    }
    list.push(boundary)
    this.byId.set(boundary.boundary_id, boundary)
  }

  get(boundaryId: string): Boundary | undefined {
    return this.byId.get(boundaryId)
  }

  /** Roots with nested children; siblings ordered by boundary id (deterministic). Built without recursion. */
  tree(sessionId: string): TimelineNode[] {
    const list = this.bySession.get(sessionId) ?? []
    const nodes = new Map(list.map((b) => [b.boundary_id, { boundary: b, children: [] as TimelineNode[] }]))
    const roots: TimelineNode[] = []
    for (const b of list) {
      const node = nodes.get(b.boundary_id)!
      const parent = b.parent_id === null ? undefined : nodes.get(b.parent_id)
      ;(parent?.children ?? roots).push(node)
    }
    const byId = (a: TimelineNode, b: TimelineNode) =>
      a.boundary.boundary_id < b.boundary.boundary_id ? -1 : 1
    for (const node of nodes.values()) node.children.sort(byId)
    return roots.sort(byId)
  }

  *all(): Iterable<Boundary> {
    for (const list of this.bySession.values()) yield* list
  }
}
