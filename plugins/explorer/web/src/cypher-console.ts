import { type Api, ApiError } from './api.js'
import { graphOfRows } from './cypher-records.js'
import { byId, clear, el, formatCount } from './dom.js'
import { GraphView } from './graph-view.js'
import { formatValue } from './records.js'
import type { CypherResult } from './types.js'

const cellText = (value: unknown): string => {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const v = value as {
      id?: unknown
      labels?: unknown
      type?: unknown
      properties?: Record<string, unknown>
    }
    const name = v.properties?.name ?? v.properties?.stix_id
    if (typeof v.id === 'string' && Array.isArray(v.labels))
      return `(${v.id}:${v.labels.join(':')}${name === undefined ? '' : ` ${String(name)}`})`
    if (typeof v.id === 'string' && typeof v.type === 'string') return `[${v.id}:${v.type}]`
  }
  return formatValue(value)
}

/** The Cypher read console: a query in the session's workspace, shown as a table or as a graph. */
export class CypherConsole {
  private readonly input = byId<HTMLTextAreaElement>('cypher-input')
  private readonly status = byId('cypher-status')
  private readonly table = byId('cypher-table')
  private readonly graphBox = byId('cypher-graph')
  private graph: GraphView | null = null
  private result: CypherResult | null = null

  constructor(
    private readonly api: Api,
    private readonly workspace: () => string | null,
    private readonly onSelect: (id: string | null) => void,
  ) {
    const form = byId<HTMLFormElement>('cypher-form')
    form.addEventListener('submit', (event) => {
      event.preventDefault()
      void this.run()
    })
    this.input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
        event.preventDefault()
        void this.run()
      }
    })
    for (const radio of form.querySelectorAll<HTMLInputElement>('input[name="cypher-view"]'))
      radio.addEventListener('change', () => this.show())
  }

  private view(): 'table' | 'graph' {
    const checked = document.querySelector<HTMLInputElement>('input[name="cypher-view"]:checked')
    return checked?.value === 'graph' ? 'graph' : 'table'
  }

  async run(): Promise<void> {
    const workspace = this.workspace()
    if (workspace === null) {
      this.status.textContent = 'Open a session first: queries run in its workspace.'
      return
    }
    this.status.textContent = 'Running…'
    try {
      this.result = await this.api.cypherRead(this.input.value, workspace)
      const r = this.result
      this.status.textContent =
        r.status === 'Success'
          ? `${formatCount(r.data?.rows.length ?? 0)} rows${r.warnings.length > 0 ? ` · ${r.warnings.join('; ')}` : ''}`
          : `${r.status}: ${r.validation_errors.map((e) => `${e.code} ${e.message}`).join('; ')}`
      this.show()
    } catch (error) {
      this.status.textContent = error instanceof ApiError ? error.message : String(error)
    }
  }

  private show(): void {
    const data = this.result?.data
    const asGraph = this.view() === 'graph'
    this.table.hidden = asGraph
    this.graphBox.hidden = !asGraph
    if (data === null || data === undefined) {
      clear(this.table)
      return
    }
    if (!asGraph) {
      clear(
        this.table,
        el(
          'table',
          {},
          el('thead', {}, el('tr', {}, ...data.columns.map((c) => el('th', { scope: 'col' }, c)))),
          el(
            'tbody',
            {},
            ...data.rows.map((row) => el('tr', {}, ...row.map((v) => el('td', {}, cellText(v))))),
          ),
        ),
      )
      return
    }
    const { nodes, relationships } = graphOfRows(data.rows)
    this.graph ??= new GraphView(this.graphBox, { onSelect: (id) => this.onSelect(id) })
    this.graph.draw(
      nodes.map((n) => ({
        id: n.id,
        labels: n.labels,
        title: String(n.properties.name ?? n.properties.title ?? n.properties.stix_id ?? n.id),
      })),
      relationships.map((r) => ({ id: r.id, source: r.start, target: r.end, type: r.type })),
    )
  }
}
