import { EngineError } from '../errors.js'
import type { GraphCatalog } from '../graph/catalog.js'
import { type Boundary, Timeline, type TimelineNode } from '../history/timeline.js'
import type { Histories } from '../kernel/histories.js'
import type { JournaledState } from '../kernel/types.js'
import type { SessionManager } from '../sessions/session-manager.js'
import { type ProjectionBudget, parseBudget } from './budget.js'
import { type BoundaryView, type Projection, project } from './projection.js'

export interface BoundaryLine {
  kind: 'boundary'
  body: Boundary
}

export interface GraphQuery {
  boundary_kind?: string | undefined
  boundary_id?: string | undefined
  max_nodes?: string | number | undefined
  max_relationships?: string | number | undefined
  max_properties_per_record?: string | number | undefined
  max_payload_bytes?: string | number | undefined
  max_computation_units?: string | number | undefined
}

const notFound = () => new EngineError('TEMPORAL_BOUNDARY_NOT_FOUND', 'no such boundary in this session')

/**
 * The session timelines (snapshots and timeshots) over the kernel's record history; the explorer reads the
 * graph as of a boundary from them. Boundaries are journalled through the same WAL as everything else.
 */
export class Temporal implements JournaledState {
  readonly timeline = new Timeline()
  readonly recordKinds = ['boundary'] as const
  readonly lineKinds = ['boundary'] as const

  constructor(
    private readonly catalog: GraphCatalog,
    private readonly histories: Histories,
    private readonly sessions: SessionManager,
    private readonly journal: (kind: string, body: unknown) => Promise<void>,
    private readonly now: () => number,
  ) {}

  async addBoundary(input: Omit<Boundary, 'boundary_id' | 'parent_id' | 'at'>): Promise<Boundary> {
    const boundary = this.timeline.add({ ...input, at: new Date(this.now()).toISOString() })
    await this.journal('boundary', boundary)
    return boundary
  }

  /** An explicit, named, pinned version of the session's workspace graph as it is now. */
  snapshot(
    sessionId: string,
    sequence: number,
    label: string,
    transactionId: string | null = null,
  ): Promise<Boundary> {
    const session = this.sessions.get(sessionId)
    return this.addBoundary({
      kind: 'snapshot',
      session_id: sessionId,
      workspace_id: session.workspace_id,
      transaction_id: transactionId,
      label,
      sequence,
    })
  }

  timelineOf(sessionId: string): { session_id: string; workspace_id: string; roots: TimelineNode[] } {
    const session = this.sessions.get(sessionId)
    return { session_id: sessionId, workspace_id: session.workspace_id, roots: this.timeline.tree(sessionId) }
  }

  /** Resolves a boundary of this session; snapshot ids are also accepted by STIX export and validation. */
  resolve(
    sessionId: string,
    kind: string,
    id: string | undefined,
  ): { view: BoundaryView; workspace: string; seq: number } {
    const session = this.sessions.get(sessionId)
    const k = kind.trim().toLowerCase()
    if (k === 'current') {
      if (id !== undefined && id !== '') {
        throw new EngineError(
          'INVALID_TEMPORAL_BOUNDARY',
          'boundary_id must not be given with boundary_kind current',
        )
      }
      return { view: { kind: 'current' }, workspace: session.workspace_id, seq: Number.MAX_SAFE_INTEGER }
    }
    if (k !== 'snapshot' && k !== 'timeshot') {
      throw new EngineError(
        'INVALID_TEMPORAL_BOUNDARY',
        'boundary_kind must be current, snapshot or timeshot',
      )
    }
    if (id === undefined || id.trim() === '') {
      throw new EngineError('INVALID_TEMPORAL_BOUNDARY', `boundary_kind ${k} needs a boundary_id`)
    }
    const boundary = this.timeline.get(id.trim())
    if (boundary === undefined || boundary.kind !== k || boundary.session_id !== sessionId) throw notFound()
    const history = this.histories.of(boundary.workspace_id)
    if (boundary.sequence < history.floorSeq) {
      throw new EngineError(
        'TEMPORAL_BOUNDARY_NOT_FOUND',
        'the boundary is older than the retained record history',
      )
    }
    return {
      view: {
        kind: k,
        boundary_id: boundary.boundary_id,
        transaction_id: boundary.transaction_id,
        at: boundary.at,
      },
      workspace: boundary.workspace_id,
      seq: boundary.sequence,
    }
  }

  graph(sessionId: string, query: GraphQuery): Projection {
    const budget: ProjectionBudget = parseBudget(query)
    const { view, workspace, seq } = this.resolve(
      sessionId,
      query.boundary_kind ?? 'current',
      query.boundary_id,
    )
    return project(this.catalog.workspace(workspace), this.histories.of(workspace), seq, budget, view)
  }

  applyRecord(_kind: string, body: unknown): void {
    this.timeline.apply(body as Boundary)
  }

  *imageLines(): Iterable<BoundaryLine> {
    for (const body of this.timeline.all()) yield { kind: 'boundary', body }
  }

  reset(): void {
    this.timeline.reset()
  }

  loadLine(line: { kind: string }): void {
    this.timeline.apply((line as BoundaryLine).body)
  }
}
