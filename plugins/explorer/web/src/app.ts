import { Api, ApiError } from './api.js'
import { CypherConsole } from './cypher-console.js'
import { renderDetails, renderTrace, type SelectedRecord } from './details-panel.js'
import { type DiffState, diffProjections } from './diff.js'
import { byId, clear, el } from './dom.js'
import { isAuthProblem } from './error-words.js'
import { renderBudget, renderDiff, renderLegend } from './graph-status.js'
import { GraphView } from './graph-view.js'
import { projectionDrawing } from './projection-drawing.js'
import { recallTitle, renderRecall } from './recall-panel.js'
import { displayName } from './records.js'
import { renderCandidates } from './search-panel.js'
import { renderSessions } from './session-list.js'
import { boundaryTitle, orderedBoundaries } from './timeline.js'
import { renderBoundaryChoices, wireTabs } from './timeline-panel.js'
import type { TokenKeeper } from './token.js'
import type { Boundary, ProjectedNode, ProjectedRelationship, Projection } from './types.js'
import { boundaryQuery, formatViewState, parseViewState, type ViewState } from './url-state.js'

/**
 * The page asks for the largest payload the spec allows unless told otherwise: the default 2 MiB leaves most
 * names out of an ATT&CK-sized graph (properties are filled after the structure), and a node without its name
 * is a bare id on the drawing. Node and relationship counts keep the spec's defaults.
 */
const PAGE_PAYLOAD_BYTES = 16_777_216

const MARK = {
  candidate: '#2563eb',
  path: '#9333ea',
  added: '#16a34a',
  removed: '#dc2626',
  changed: '#f59e0b',
} as const

/**
 * The page's controller: the view state (mirrored in the URL), the data loaded for it, and the panels drawn
 * from both. Every load goes through `guard`, which turns a failure into words in the banner.
 */
export class ExplorerApp {
  private readonly api: Api
  private view: ViewState = parseViewState(location.search)
  private workspaceId: string | null = null
  private boundaries: Boundary[] = []
  private projection: Projection | null = null
  private nodes = new Map<string, ProjectedNode>()
  private relationships = new Map<string, ProjectedRelationship>()
  private readonly graph: GraphView
  private loadSeq = 0

  constructor(private readonly tokens: TokenKeeper) {
    this.api = new Api(() => tokens.get())
    this.graph = new GraphView(byId('graph'), { onSelect: (id) => this.select(id, 'graph') })
    new CypherConsole(
      this.api,
      () => this.workspace(),
      (id) => id !== null && this.select(id, 'list'),
    )
    this.wire()
  }

  private workspace(): string | null {
    return this.workspaceId
  }

  // ---- messages -------------------------------------------------------------------------------

  private say(message: string | null, kind: 'error' | 'info' = 'error'): void {
    const banner = byId('banner')
    banner.hidden = message === null
    banner.className = `banner ${kind}`
    banner.textContent = message ?? ''
  }

  /** Runs a load; a failure becomes a sentence in the banner (and the token form for a 401). */
  private async guard<T>(work: () => Promise<T>): Promise<T | undefined> {
    try {
      return await work()
    } catch (error) {
      if (!(error instanceof ApiError)) throw error
      this.say(error.message)
      if (isAuthProblem(error.problem)) this.askToken()
      return undefined
    }
  }

  // ---- token ----------------------------------------------------------------------------------

  askToken(): void {
    byId('token-form').hidden = false
    byId('signed-in').hidden = true
    byId('token-input').focus()
  }

  private wire(): void {
    byId<HTMLFormElement>('token-form').addEventListener('submit', (event) => {
      event.preventDefault()
      const input = byId<HTMLInputElement>('token-input')
      if (input.value.trim() === '') return
      this.tokens.set(input.value)
      input.value = ''
      void this.start()
    })
    byId('sign-out').addEventListener('click', () => {
      this.tokens.clear()
      this.say('The token was forgotten for this tab.', 'info')
      this.askToken()
    })
    byId<HTMLInputElement>('show-stopped').addEventListener('change', (event) => {
      this.view.showStopped = (event.target as HTMLInputElement).checked
      this.pushView()
      void this.loadSessions()
    })
    const scrubber = byId<HTMLInputElement>('scrubber')
    scrubber.addEventListener('input', () => this.labelScrubber())
    scrubber.addEventListener('change', () => {
      const i = Number(scrubber.value)
      this.setBoundary(this.boundaries[i]?.boundary_id ?? 'current')
    })
    byId<HTMLFormElement>('budget-form').addEventListener('submit', (event) => {
      event.preventDefault()
      const read = (id: string) => {
        const n = Number(byId<HTMLInputElement>(id).value)
        return Number.isInteger(n) && n > 0 ? n : null
      }
      this.view.maxNodes = read('budget-nodes')
      this.view.maxRelationships = read('budget-rels')
      this.view.maxPayloadBytes = read('budget-bytes')
      this.pushView()
      void this.loadGraph()
    })
    byId<HTMLFormElement>('search-form').addEventListener('submit', (event) => {
      event.preventDefault()
      void this.search(byId<HTMLInputElement>('search-input').value)
    })
    byId<HTMLFormElement>('recall-form').addEventListener('submit', (event) => {
      event.preventDefault()
      void this.recall(byId<HTMLInputElement>('recall-input').value)
    })
    byId<HTMLSelectElement>('compare-select').addEventListener('change', (event) => {
      const value = (event.target as HTMLSelectElement).value
      this.view.compare = value === '' ? null : value
      this.pushView()
      void this.loadGraph()
    })
    wireTabs([byId('tab-graph'), byId('tab-cypher')])
    window.addEventListener('popstate', () => {
      this.view = parseViewState(location.search)
      void this.start()
    })
  }

  // ---- view state -----------------------------------------------------------------------------

  private pushView(replace = false): void {
    const query = formatViewState(this.view)
    const url = `${location.pathname}${query === '' ? '' : `?${query}`}`
    if (replace) history.replaceState(null, '', url)
    else history.pushState(null, '', url)
  }

  async start(): Promise<void> {
    if (this.tokens.get() === null) {
      this.say('Enter the service token to open the explorer.', 'info')
      this.askToken()
      return
    }
    byId('token-form').hidden = true
    byId('signed-in').hidden = false
    this.say(null)
    byId<HTMLInputElement>('show-stopped').checked = this.view.showStopped
    const fill = (id: string, v: number | null) => {
      byId<HTMLInputElement>(id).value = v === null ? '' : String(v)
    }
    fill('budget-nodes', this.view.maxNodes)
    fill('budget-rels', this.view.maxRelationships)
    fill('budget-bytes', this.view.maxPayloadBytes)
    // The list, the timeline and the projection are independent requests: a linked view asks for all at once.
    await Promise.all([
      this.loadSessions(),
      this.view.session === null ? null : this.openSession(this.view.session, false),
    ])
  }

  private async loadSessions(): Promise<boolean> {
    const sessions = await this.guard(() => this.api.sessions(this.view.showStopped))
    if (sessions === undefined) return false
    renderSessions(byId('session-list'), sessions, this.view.session, (id) => void this.openSession(id, true))
    return true
  }

  private async openSession(sessionId: string, fromClick: boolean): Promise<void> {
    if (fromClick) {
      this.view = { ...this.view, session: sessionId, boundary: 'current', compare: null, select: null }
      this.pushView()
      for (const b of document.querySelectorAll('#session-list button.session'))
        b.setAttribute('aria-current', String(b.getAttribute('data-session-id') === sessionId))
    }
    this.workspaceId = null
    this.boundaries = []
    const graph = this.loadGraph()
    const timeline = await this.guard(() => this.api.timeline(sessionId))
    if (timeline !== undefined && this.view.session === sessionId) {
      // The timeline names the workspace (search, Cypher and details run there), also for a stopped session
      // opened from a link, which the default list leaves out.
      this.workspaceId = timeline.workspace_id
      this.boundaries = orderedBoundaries(timeline.roots)
      this.renderTimeline()
    }
    await graph
    if (this.projection !== null) this.renderBudget(this.projection)
  }

  private renderTimeline(): void {
    byId('timeline-section').hidden = false
    const scrubber = byId<HTMLInputElement>('scrubber')
    // Positions 0..n-1 are the boundaries in order; n is "current".
    scrubber.max = String(this.boundaries.length)
    const at = this.boundaries.findIndex((b) => b.boundary_id === this.view.boundary)
    scrubber.value = String(at === -1 ? this.boundaries.length : at)
    scrubber.setAttribute('aria-valuetext', this.positionTitle(Number(scrubber.value)))
    this.labelScrubber()
    renderBoundaryChoices(
      byId('boundary-list'),
      byId<HTMLSelectElement>('compare-select'),
      this.boundaries,
      { shown: this.view.boundary, compare: this.view.compare },
      (id) => this.setBoundary(id),
    )
  }

  private positionTitle(i: number): string {
    const b = this.boundaries[i]
    return b === undefined ? 'current graph' : `${i + 1} of ${this.boundaries.length}: ${boundaryTitle(b)}`
  }

  private labelScrubber(): void {
    const scrubber = byId<HTMLInputElement>('scrubber')
    const text = this.positionTitle(Number(scrubber.value))
    scrubber.setAttribute('aria-valuetext', text)
    byId('boundary-label').textContent = text
  }

  private setBoundary(boundary: string): void {
    if (boundary === this.view.boundary) return
    this.view.boundary = boundary
    this.pushView()
    this.renderTimeline()
    void this.loadGraph()
  }

  // ---- graph ----------------------------------------------------------------------------------

  private query(boundary: string): Record<string, string> {
    const q = boundaryQuery(boundary)
    if (this.view.maxNodes !== null) q.max_nodes = String(this.view.maxNodes)
    if (this.view.maxRelationships !== null) q.max_relationships = String(this.view.maxRelationships)
    q.max_payload_bytes = String(this.view.maxPayloadBytes ?? PAGE_PAYLOAD_BYTES)
    return q
  }

  async loadGraph(): Promise<void> {
    const session = this.view.session
    if (session === null) return
    const seq = ++this.loadSeq
    const container = byId('graph')
    container.setAttribute('aria-busy', 'true')
    byId('budget-status').textContent = 'Loading the projection…'
    const compare = this.view.compare
    const loaded = await this.guard(() =>
      Promise.all([
        this.api.graph(session, this.query(this.view.boundary)),
        compare === null ? Promise.resolve(null) : this.api.graph(session, this.query(compare)),
      ]),
    )
    if (seq !== this.loadSeq) return
    performance.mark('explorer:graph-fetched')
    container.removeAttribute('aria-busy')
    if (loaded === undefined) {
      byId('budget-status').textContent = 'No projection: see the message above.'
      return
    }
    this.say(null)
    const [projection, other] = loaded
    this.projection = projection
    this.nodes = new Map(projection.nodes.map((n) => [n.id, n]))
    this.relationships = new Map(projection.relationships.map((r) => [r.id, r]))
    const drawing = projectionDrawing(projection, other)
    this.graph.draw(drawing.nodes, drawing.edges)
    this.renderBudget(projection)
    this.renderLegend()
    if (other !== null) this.renderDiff(projection, other)
    else clear(byId('diff-results'))
    if (this.view.select !== null) this.select(this.view.select, 'link')
  }

  private renderBudget(p: Projection): void {
    const where = this.positionTitle(this.boundaries.findIndex((x) => x.boundary_id === this.view.boundary))
    renderBudget(byId('budget-status'), p, this.view.boundary === 'current' ? 'current graph' : where)
  }

  private renderLegend(): void {
    renderLegend(byId('legend'), this.graph.colours, this.graph.groupCounts)
  }

  /** Diffs from the earlier boundary to the later one, whichever of the two is shown. */
  private renderDiff(shown: Projection, other: Projection): void {
    const seqOf = (id: string) =>
      id === 'current'
        ? Number.POSITIVE_INFINITY
        : (this.boundaries.find((b) => b.boundary_id === id)?.sequence ?? 0)
    const shownIsLater = seqOf(this.view.boundary) >= seqOf(this.view.compare ?? 'current')
    const diff = shownIsLater ? diffProjections(other, shown) : diffProjections(shown, other)
    const colour = (s: DiffState) => MARK[s]
    this.graph.mark(
      new Map([...diff.nodes].map(([id, s]) => [id, colour(s)])),
      new Map([...diff.relationships].map(([id, s]) => [id, colour(s)])),
    )
    renderDiff(
      byId('diff-results'),
      diff,
      (id) => this.nameOf(id, other),
      (id) => this.select(id, 'list'),
    )
  }

  private nameOf(id: string, other?: Projection): string {
    const node = this.nodes.get(id) ?? other?.nodes.find((n) => n.id === id)
    return node === undefined ? id : displayName(node)
  }

  // ---- selection and details ------------------------------------------------------------------

  /** Selects a record; chosen from a list, the camera also moves to it (on the graph it is already in view). */
  select(id: string | null, from: 'graph' | 'list' | 'link'): void {
    this.view.select = id
    if (from !== 'link') this.pushView(true)
    this.graph.select(id)
    const details = byId('details')
    if (id === null) {
      clear(
        details,
        el('p', { className: 'hint' }, 'Click a node or a relationship, or pick a search result.'),
      )
      return
    }
    const node = this.nodes.get(id)
    const rel = this.relationships.get(id)
    let selected: SelectedRecord
    if (node !== undefined) selected = { kind: 'node', record: node }
    else if (rel !== undefined)
      selected = {
        kind: 'relationship',
        record: rel,
        sourceTitle: this.nameOf(rel.source),
        targetTitle: this.nameOf(rel.target),
      }
    else {
      clear(
        details,
        el('p', { className: 'hint' }, `${id} is not part of this projection (boundary or budget).`),
      )
      return
    }
    if (from === 'list' && node !== undefined) this.graph.focus(id)
    const omitted = (this.projection?.metadata.omitted_properties ?? 0) > 0
    renderDetails(
      details,
      selected,
      omitted ? 'Some properties were left out by the projection budget; the current values follow.' : null,
    )
    if (omitted) void this.completeProperties(selected)
    if (node?.labels.includes('Memory')) void this.showTrace(id)
  }

  /** Properties the budget left out, read from the current graph (the projection said it dropped some). */
  private async completeProperties(selected: SelectedRecord): Promise<void> {
    const workspace = this.workspace()
    if (workspace === null) return
    const n = Number(selected.record.id.split('--')[1])
    if (!Number.isSafeInteger(n)) return
    const query =
      selected.kind === 'node'
        ? `MATCH (x) WHERE id(x) = ${n} RETURN properties(x) AS p`
        : `MATCH ()-[x]->() WHERE id(x) = ${n} RETURN properties(x) AS p`
    const result = await this.guard(() => this.api.cypherRead(query, workspace))
    const props = result?.data?.rows[0]?.[0]
    if (this.view.select !== selected.record.id || props === null || typeof props !== 'object') return
    const merged = { ...selected.record.properties }
    for (const [k, v] of Object.entries(props as Record<string, unknown>)) {
      if (merged[k] === undefined) merged[k] = { type: 'json', value: v }
    }
    renderDetails(
      byId('details'),
      { ...selected, record: { ...selected.record, properties: merged } } as SelectedRecord,
      null,
    )
    const node = this.nodes.get(selected.record.id)
    if (node?.labels.includes('Memory')) void this.showTrace(node.id)
  }

  private async showTrace(id: string): Promise<void> {
    try {
      const trace = await this.api.trace(id)
      if (this.view.select === id) renderTrace(byId('details'), trace.versions)
    } catch (error) {
      if (this.view.select === id)
        renderTrace(byId('details'), error instanceof ApiError ? error.message : String(error))
    }
  }

  // ---- search and recall ----------------------------------------------------------------------

  private async search(objective: string): Promise<void> {
    const workspace = this.workspace()
    const list = byId('search-results')
    if (workspace === null) {
      clear(list, el('li', { className: 'hint' }, 'Open a session first: the search runs in its workspace.'))
      return
    }
    clear(list, el('li', { className: 'hint' }, 'Searching…'))
    try {
      const { candidates } = await this.api.seedSearch(objective, workspace)
      const marked = this.graph.mark(new Map(candidates.map((c) => [c.node_id, MARK.candidate])))
      list.dataset.highlighted = String(marked)
      renderCandidates(
        list,
        candidates,
        (id) => this.graph.has(id),
        (id) => this.select(id, 'list'),
      )
    } catch (error) {
      if (!(error instanceof ApiError)) throw error
      this.graph.mark(new Map())
      clear(list, el('li', { className: 'error' }, error.message))
    }
  }

  private async recall(objective: string): Promise<void> {
    const box = byId('recall-results')
    clear(box, el('p', { className: 'hint' }, 'Recalling…'))
    try {
      const result = await this.api.recall(objective)
      const nodes = new Map<string, string>()
      const edges = new Map<string, string>()
      for (const item of result.items) {
        for (const id of item.selection_path.memory_ids) nodes.set(id, MARK.path)
        for (const id of item.selection_path.relationship_ids) edges.set(id, MARK.path)
        nodes.set(item.record.id, MARK.path)
      }
      this.graph.mark(nodes, edges)
      // Path memories are named by their own text (the projection may not hold them).
      const titles = new Map(result.items.map((i) => [i.record.id, recallTitle(i)]))
      renderRecall(
        box,
        result,
        (id) => titles.get(id) ?? this.nameOf(id),
        (id) => this.select(id, 'list'),
      )
      const missing = [...nodes.keys()].filter((id) => !this.graph.has(id)).length
      if (missing > 0)
        box.append(
          el(
            'p',
            { className: 'hint' },
            `${missing} recalled memories are not in the shown projection (another workspace, boundary or budget).`,
          ),
        )
    } catch (error) {
      if (!(error instanceof ApiError)) throw error
      clear(box, el('p', { className: 'error' }, error.message))
    }
  }

  /** For tests and tools: where a node is drawn, to click on it. */
  debugHandle() {
    return {
      viewportPosition: (id: string) => this.graph.viewportPosition(id),
      nodeIds: () => this.graph.nodeIds(),
    }
  }
}
