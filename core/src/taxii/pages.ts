/**
 * Selecting one page of a collection's object versions: versions in date-added order after the cursor,
 * through the TAXII filters, each with its text (the graph holds the current version's, the versions ledger
 * older ones). Objects no longer in the graph (deleted through Cypher) are not served. Because every
 * version has its own date added and new versions only ever get later ones, a client paging with `next` or
 * `added_after` sees each version once, however writes interleave.
 */
import type { GraphReader } from '../graph/types.js'
import { P, STIX_LABEL } from '../stix/mapping.js'
import { timestampKey } from '../stix/timestamps.js'
import type { VersionRow, WorkspaceVersions } from '../stix/versions.js'
import { nextToken, type ObjectQuery } from './query.js'

export interface Served {
  row: VersionRow
  /** The version's canonical STIX text. */
  text: string
}

export interface Page {
  items: Served[]
  more: boolean
  /** Present when `more`: the cursor of the page after this one. */
  next: string | null
}

/** The current text of objects in one workspace graph, read by STIX id. */
class GraphObjects {
  private readonly label: number
  private readonly idKey: number
  private readonly rawKey: number
  /** Out-edges of source nodes by STIX id, built once per node per page (hubs have thousands of edges). */
  private readonly edges = new Map<number, Map<string, number>>()

  constructor(private readonly graph: GraphReader) {
    this.label = graph.names.lookup(STIX_LABEL)
    this.idKey = graph.names.lookup(P.id)
    this.rawKey = graph.names.lookup(P.raw)
  }

  private nodeOf(stixId: string): number | undefined {
    if (this.label < 0 || this.idKey < 0) return undefined
    for (const id of this.graph.propertyNodeIds(this.label, this.idKey, stixId)) return id
    return undefined
  }

  /** The stored text of the object, or undefined when the graph does not hold it. */
  text(row: VersionRow): string | undefined {
    if (this.rawKey < 0) return undefined
    if (row.src === null) {
      const node = this.nodeOf(row.id)
      const raw = node === undefined ? undefined : this.graph.node(node)?.props.get(this.rawKey)
      return typeof raw === 'string' ? raw : undefined
    }
    const start = this.nodeOf(row.src)
    if (start === undefined) return undefined
    let byId = this.edges.get(start)
    if (byId === undefined) {
      byId = new Map()
      for (const rel of this.graph.node(start)?.out ?? []) {
        const id = this.graph.relProps(rel)?.get(this.idKey)
        if (typeof id === 'string') byId.set(id, rel)
      }
      this.edges.set(start, byId)
    }
    const rel = byId.get(row.id)
    const raw = rel === undefined ? undefined : this.graph.relProps(rel)?.get(this.rawKey)
    return typeof raw === 'string' ? raw : undefined
  }
}

function versionMatches(w: WorkspaceVersions, row: VersionRow, q: ObjectQuery): boolean {
  const v = q.versions
  if (v.all) return true
  const list = w.versions(row.id)
  // Rows are views: the same version is the same version text (one row per instant).
  if (v.last && list.at(-1)?.version === row.version) return true
  if (v.first && list[0]?.version === row.version) return true
  return v.exact.size > 0 && v.exact.has(timestampKey(row.version) ?? row.version)
}

/** Candidate rows after the cursor in date-added order: by id when `match[id]` names them, else the log. */
function* candidates(w: WorkspaceVersions, q: ObjectQuery): Iterable<VersionRow> {
  if (q.ids !== null) {
    const rows = [...q.ids].flatMap((id) => w.versions(id)).filter((r) => r.added > q.after)
    yield* rows.sort((a, b) => a.added - b.added)
    return
  }
  for (let i = w.firstAfter(q.after); i < w.logSize; i++) if (w.live(i)) yield w.logRow(i)
}

/** One page of versions matching `q` in workspace versions `w`, read against `graph` (one consistent version). */
export function selectPage(w: WorkspaceVersions | undefined, graph: GraphReader, q: ObjectQuery): Page {
  const items: Served[] = []
  if (w === undefined) return { items, more: false, next: null }
  const objects = new GraphObjects(graph)
  for (const row of candidates(w, q)) {
    if (q.types !== null && !q.types.has(row.type)) continue
    if (q.specVersions !== null && !q.specVersions.has(row.spec)) continue
    if (!versionMatches(w, row, q)) continue
    const current = objects.text(row)
    if (current === undefined) continue // deleted from the graph: withdrawn from the collection
    if (items.length === q.limit) {
      const last = items.at(-1) as Served
      return { items, more: true, next: nextToken(last.row.added) }
    }
    items.push({ row, text: row.raw ?? current })
  }
  return { items, more: false, next: null }
}
