import { MultiDirectedGraph } from 'graphology'
import forceAtlas2 from 'graphology-layout-forceatlas2'
import FA2Layout from 'graphology-layout-forceatlas2/worker'
import Sigma from 'sigma'
import { labelColours, primaryLabel, sizeForDegree, startPosition } from './records.js'

/** What the view draws: a projection, a Cypher result or a diff, reduced to ids, labels and titles. */
export interface DrawNode {
  id: string
  labels: string[]
  title: string
  /** Drawn but not counted: a record only the compared boundary had (diff). */
  ghost?: boolean
}
export interface DrawEdge {
  id: string
  source: string
  target: string
  type: string
  ghost?: boolean
}

interface NodeAttrs {
  x: number
  y: number
  size: number
  color: string
  label: string
  group: string
  ghost: boolean
}
interface EdgeAttrs {
  type: 'arrow' | 'line'
  size: number
  color: string
  label: string
  ghost: boolean
}

const EDGE_COLOUR = '#c3c9d2'
const DIM_COLOUR = '#e4e7eb'
const SELECT_COLOUR = '#111827'
const ARROW_LIMIT = 3_000
/** How often layout positions reach the drawing while ForceAtlas2 runs. */
const LAYOUT_SYNC_MS = 500
const FORCED_LABELS = 40
/** How long ForceAtlas2 refines a drawing in its worker before it is left as it is. */
const LAYOUT_MS = { small: 1_500, large: 5_000 }

export interface GraphViewEvents {
  onSelect: (id: string | null, kind: 'node' | 'relationship' | null) => void
}

/**
 * A sigma.js drawing of a graphology graph. The first frame is drawn at once from deterministic start
 * positions (that is when the view is usable and `data-node-count` / `data-relationship-count` are set);
 * ForceAtlas2 then refines the positions in a web worker for a bounded time (`data-layout` tells which).
 */
export class GraphView {
  private graph = new MultiDirectedGraph<NodeAttrs, EdgeAttrs>()
  private renderer: Sigma<NodeAttrs, EdgeAttrs>
  private layout: {
    supervisor: FA2Layout
    sync: ReturnType<typeof setInterval>
    stop: ReturnType<typeof setTimeout>
  } | null = null
  private selected: string | null = null
  private readonly nodeMarks = new Map<string, string>()
  private readonly edgeMarks = new Map<string, string>()
  colours = new Map<string, string>()
  groupCounts = new Map<string, number>()

  constructor(
    readonly container: HTMLElement,
    private readonly events: GraphViewEvents,
  ) {
    this.renderer = this.createRenderer()
    // Focusable so its keys work (set here: the shell's HTML lint does not know role=application is interactive).
    container.tabIndex = 0
    container.addEventListener('keydown', (event) => this.onKey(event))
  }

  private createRenderer(): Sigma<NodeAttrs, EdgeAttrs> {
    const renderer = new Sigma(this.graph, this.container, {
      allowInvalidContainer: true,
      // Edge picking draws every edge a second time per frame: kept for graphs small enough to afford it.
      enableEdgeEvents: this.graph.size <= ARROW_LIMIT,
      defaultEdgeType: 'arrow',
      renderEdgeLabels: false,
      hideEdgesOnMove: true,
      labelRenderedSizeThreshold: 7,
      labelDensity: 0.5,
      zIndex: true,
      nodeReducer: (node, data) => {
        const mark = this.nodeMarks.get(node)
        const focused = this.nodeMarks.size > 0
        if (node === this.selected)
          return { ...data, color: mark ?? data.color, highlighted: true, zIndex: 3, forceLabel: true }
        // A few marked nodes (search, recall) all get their names; hundreds (a diff) leave it to sigma's density.
        if (mark !== undefined)
          return {
            ...data,
            color: mark,
            size: data.size + 2,
            zIndex: 2,
            forceLabel: this.nodeMarks.size <= FORCED_LABELS,
          }
        if (focused || data.ghost) return { ...data, color: DIM_COLOUR, label: '', zIndex: 0 }
        return data
      },
      edgeReducer: (edge, data) => {
        const mark = this.edgeMarks.get(edge)
        if (mark !== undefined) return { ...data, color: mark, size: 3, zIndex: 2 }
        if (edge === this.selected) return { ...data, color: SELECT_COLOUR, size: 3, zIndex: 2 }
        if (this.nodeMarks.size > 0 || this.edgeMarks.size > 0 || data.ghost)
          return { ...data, color: DIM_COLOUR, zIndex: 0 }
        return data
      },
    })
    renderer.on('clickNode', ({ node }) => this.events.onSelect(node, 'node'))
    renderer.on('clickEdge', ({ edge }) => this.events.onSelect(edge, 'relationship'))
    renderer.on('clickStage', () => this.events.onSelect(null, null))
    return renderer
  }

  /**
   * Replaces the drawing; returns once the first frame is on screen. The graph is built detached and then handed
   * to the renderer, which indexes it once (a renderer listening while 15,000 records are added one by one
   * costs several times more).
   */
  draw(nodes: readonly DrawNode[], edges: readonly DrawEdge[]): void {
    this.stopLayout()
    this.container.removeAttribute('data-node-count')
    this.container.removeAttribute('data-relationship-count')
    this.nodeMarks.clear()
    this.edgeMarks.clear()
    this.selected = null

    const present = new Set(nodes.map((n) => n.id))
    const degree = new Map<string, number>()
    for (const e of edges) {
      if (!present.has(e.source) || !present.has(e.target)) continue
      degree.set(e.source, (degree.get(e.source) ?? 0) + 1)
      degree.set(e.target, (degree.get(e.target) ?? 0) + 1)
    }
    const groups = new Map<string, number>()
    let counted = 0
    for (const n of nodes) {
      if (n.ghost) continue
      counted++
      const g = primaryLabel(n.labels)
      groups.set(g, (groups.get(g) ?? 0) + 1)
    }
    this.groupCounts = groups
    this.colours = labelColours(groups)
    const groupIndex = new Map([...this.colours.keys()].map((g, i) => [g, i]))
    const seen = new Map<string, number>()
    const graph = new MultiDirectedGraph<NodeAttrs, EdgeAttrs>()
    for (const n of nodes) {
      if (graph.hasNode(n.id)) continue
      const group = primaryLabel(n.labels)
      const index = seen.get(group) ?? 0
      seen.set(group, index + 1)
      graph.addNode(n.id, {
        ...startPosition(index, groupIndex.get(group) ?? 0, groups.size),
        size: sizeForDegree(degree.get(n.id) ?? 0),
        color: this.colours.get(group) ?? '#9aa0a6',
        label: n.title,
        group,
        ghost: n.ghost === true,
      })
    }
    // Arrowheads tell direction on a readable drawing; past a few thousand edges they are noise and cost.
    const type = edges.length > ARROW_LIMIT ? 'line' : 'arrow'
    let drawnEdges = 0
    for (const e of edges) {
      if (!present.has(e.source) || !present.has(e.target) || graph.hasEdge(e.id)) continue
      graph.addDirectedEdgeWithKey(e.id, e.source, e.target, {
        size: 1,
        color: EDGE_COLOUR,
        label: e.type,
        ghost: e.ghost === true,
        type,
      })
      if (e.ghost !== true) drawnEdges++
    }
    this.graph = graph
    performance.mark('explorer:graph-built')
    // Same renderer (its WebGL contexts are costly to make), new graph: indexed once, drawn at once.
    // Settings and camera first, then the graph: setGraph draws synchronously, once.
    const edgeEvents = graph.size <= ARROW_LIMIT
    if (this.renderer.getSetting('enableEdgeEvents') !== edgeEvents)
      this.renderer.setSetting('enableEdgeEvents', edgeEvents)
    this.renderer.getCamera().setState({ x: 0.5, y: 0.5, ratio: 1, angle: 0 })
    this.renderer.setGraph(graph)
    this.container.dataset.nodeCount = String(counted)
    this.container.dataset.relationshipCount = String(drawnEdges)
    // Performance marks for tools (`pnpm bench explorer`): drawn, then the first frame after it (interactive).
    performance.mark('explorer:graph-drawn')
    requestAnimationFrame(() => performance.mark('explorer:graph-interactive'))
    this.startLayout()
  }

  /**
   * ForceAtlas2 runs in its worker on a copy of the graph; positions are copied onto the drawn graph a few
   * times a second, so the page redraws at that pace rather than after every iteration and stays responsive.
   */
  private startLayout(): void {
    if (this.graph.order < 2) {
      this.container.dataset.layout = 'done'
      return
    }
    this.container.dataset.layout = 'running'
    const shadow = this.graph.copy()
    const supervisor = new FA2Layout(shadow, {
      settings: { ...forceAtlas2.inferSettings(shadow), barnesHutOptimize: shadow.order > 500 },
    })
    supervisor.start()
    const apply = () =>
      this.graph.updateEachNodeAttributes(
        (node, attrs) => {
          attrs.x = shadow.getNodeAttribute(node, 'x')
          attrs.y = shadow.getNodeAttribute(node, 'y')
          return attrs
        },
        { attributes: ['x', 'y'] },
      )
    const ms = this.graph.order > 1_000 ? LAYOUT_MS.large : LAYOUT_MS.small
    this.layout = {
      supervisor,
      sync: setInterval(apply, LAYOUT_SYNC_MS),
      stop: setTimeout(() => {
        apply()
        this.stopLayout()
      }, ms),
    }
  }

  private stopLayout(): void {
    if (this.layout === null) return
    clearInterval(this.layout.sync)
    clearTimeout(this.layout.stop)
    this.layout.supervisor.kill()
    this.layout = null
    this.container.dataset.layout = 'done'
  }

  has(id: string): boolean {
    return this.graph.hasNode(id) || this.graph.hasEdge(id)
  }

  select(id: string | null): void {
    this.selected = id
    this.renderer.refresh({ skipIndexation: true })
  }

  /** Colours some nodes and relationships and dims the rest (search candidates, recall paths, diff). */
  mark(nodes: ReadonlyMap<string, string>, edges: ReadonlyMap<string, string> = new Map()): number {
    this.nodeMarks.clear()
    this.edgeMarks.clear()
    for (const [id, colour] of nodes) if (this.graph.hasNode(id)) this.nodeMarks.set(id, colour)
    for (const [id, colour] of edges) if (this.graph.hasEdge(id)) this.edgeMarks.set(id, colour)
    this.container.dataset.markedNodes = String(this.nodeMarks.size)
    this.container.dataset.markedRelationships = String(this.edgeMarks.size)
    this.renderer.refresh({ skipIndexation: true })
    return this.nodeMarks.size
  }

  /** Moves the camera to a node (keyboard selection from a list). */
  focus(id: string): void {
    const data = this.renderer.getNodeDisplayData(id)
    if (data === undefined) return
    void this.renderer.getCamera().animate({ x: data.x, y: data.y, ratio: 0.4 }, { duration: 300 })
  }

  /** A node's position in the container, in CSS pixels (for tests and tools that click on it). */
  viewportPosition(id: string): { x: number; y: number } | null {
    const data = this.renderer.getNodeDisplayData(id)
    return data === undefined ? null : this.renderer.framedGraphToViewport(data)
  }

  nodeIds(): string[] {
    return this.graph.nodes()
  }

  private onKey(event: KeyboardEvent): void {
    const camera = this.renderer.getCamera()
    const state = camera.getState()
    const step = 0.1 * state.ratio
    const moves: Record<string, () => void> = {
      '+': () => void camera.animatedZoom({ duration: 150 }),
      '=': () => void camera.animatedZoom({ duration: 150 }),
      '-': () => void camera.animatedUnzoom({ duration: 150 }),
      '0': () => void camera.animatedReset({ duration: 150 }),
      ArrowLeft: () => camera.setState({ ...state, x: state.x - step }),
      ArrowRight: () => camera.setState({ ...state, x: state.x + step }),
      ArrowUp: () => camera.setState({ ...state, y: state.y + step }),
      ArrowDown: () => camera.setState({ ...state, y: state.y - step }),
      Escape: () => this.events.onSelect(null, null),
    }
    const move = moves[event.key]
    if (move === undefined) return
    event.preventDefault()
    move()
  }

  kill(): void {
    this.stopLayout()
    this.renderer.kill()
  }
}
