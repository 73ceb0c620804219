import { EngineError } from '../errors.js'
import { type ProjectionBudget, parseBudget } from '../explorer/budget.js'
import { type BoundaryView, type Projection, project } from '../explorer/projection.js'
import type { GraphCatalog } from '../graph/catalog.js'
import type { CommitRecord } from '../graph/commit.js'
import { type HistoryLine, RecordHistory } from '../history/record-history.js'
import { type Boundary, Timeline, type TimelineNode } from '../history/timeline.js'
import type { SessionManager } from '../sessions/session-manager.js'

export type TemporalLine =
  | { kind: 'history'; workspace: string; entry: HistoryLine }
  | { kind: 'boundary'; body: Boundary }

export interface GraphQuery {
  boundary_kind?: string | undefined
  boundary_id?: string | undefined
  max_nodes?: string | number | undefined
  max_relationships?: string | number | undefined
  max_properties_per_record?: string | number | undefined
  max_payload_bytes?: string | number | undefined
  max_computation_units?: string | number | undefined
}

const notFound = () =>
  new EngineError('TEMPORAL_BOUNDARY_NOT_FOUND', 'no such boundary in this session', 'not_found')

/**
 * Record history per workspace and the session timelines; the explorer reads the graph as of a boundary
 * from them. Boundaries are journalled through the same WAL as everything else.
 */
export class Temporal {
  private readonly histories = new Map<string, RecordHistory>()
  readonly timeline = new Timeline()

  constructor(
    private readonly catalog: GraphCatalog,
    private readonly sessions: SessionManager,
    private readonly journal: (kind: string, body: unknown) => Promise<void>,
    private readonly maxVersions: number,
    private readonly now: () => number,
  ) {}

  history(workspace: string): RecordHistory {
    let h = this.histories.get(workspace)
    if (h === undefined) {
      h = new RecordHistory(this.maxVersions)
      this.histories.set(workspace, h)
    }
    return h
  }

  /** Before a commit is applied: remember what it replaces. */
  capture(workspace: string, commit: CommitRecord, seq: number): void {
    this.history(workspace).capture(this.catalog.workspace(workspace), commit, seq)
  }

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
          'invalid',
        )
      }
      return { view: { kind: 'current' }, workspace: session.workspace_id, seq: Number.MAX_SAFE_INTEGER }
    }
    if (k !== 'snapshot' && k !== 'timeshot') {
      throw new EngineError(
        'INVALID_TEMPORAL_BOUNDARY',
        'boundary_kind must be current, snapshot or timeshot',
        'invalid',
      )
    }
    if (id === undefined || id.trim() === '') {
      throw new EngineError('INVALID_TEMPORAL_BOUNDARY', `boundary_kind ${k} needs a boundary_id`, 'invalid')
    }
    const boundary = this.timeline.get(id.trim())
    if (boundary === undefined || boundary.kind !== k || boundary.session_id !== sessionId) throw notFound()
    const history = this.history(boundary.workspace_id)
    if (boundary.sequence < history.floorSeq) {
      throw new EngineError(
        'TEMPORAL_BOUNDARY_NOT_FOUND',
        'the boundary is older than the retained record history',
        'not_found',
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
    return project(this.catalog.workspace(workspace), this.history(workspace), seq, budget, view)
  }

  applyBoundary(boundary: Boundary): void {
    this.timeline.apply(boundary)
  }

  *imageLines(): Iterable<TemporalLine> {
    for (const [workspace, history] of this.histories) {
      for (const entry of history.export()) yield { kind: 'history', workspace, entry }
    }
    for (const body of this.timeline.all()) yield { kind: 'boundary', body }
  }

  loadLine(line: TemporalLine): void {
    if (line.kind === 'history') this.history(line.workspace).import(line.entry)
    else this.timeline.apply(line.body)
  }

  finishLoad(): void {
    for (const h of this.histories.values()) h.sortOrder()
  }
}
