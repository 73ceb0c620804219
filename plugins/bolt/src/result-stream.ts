import type { CypherResult, DetachedValue, MutationSummary, ResultCursor } from '@service/core/cypher'
import type { PackValue } from './packstream/structure.js'

/** Neo4j's counter names for our mutation summary. */
const COUNTERS: ReadonlyArray<[keyof MutationSummary, string]> = [
  ['created_nodes', 'nodes-created'],
  ['deleted_nodes', 'nodes-deleted'],
  ['created_relationships', 'relationships-created'],
  ['deleted_relationships', 'relationships-deleted'],
  ['properties_set', 'properties-set'],
  ['labels_added', 'labels-added'],
  ['labels_removed', 'labels-removed'],
]

/** `stats` as Neo4j sends it: only the counters that are not zero, with `contains-updates`; null for none. */
export function statsOf(summary: MutationSummary): Map<string, PackValue> | null {
  const stats = new Map<string, PackValue>()
  for (const [ours, theirs] of COUNTERS) {
    const count = summary[ours]
    if (count > 0) stats.set(theirs, BigInt(count))
  }
  if (stats.size === 0) return null
  stats.set('contains-updates', true)
  return stats
}

/**
 * The query type Neo4j reports: `r` read, `w` write only, `rw` read and write, `s` schema. The engine says
 * (`query_type`); without it (a backend that does not), what the result shows decides.
 */
export function queryType(result: CypherResult): 'r' | 'w' | 'rw' | 's' {
  if (result.query_type !== undefined) return result.query_type
  const wrote = statsOf(result.mutation_summary) !== null
  if (!wrote) return 'r'
  return (result.data?.rows.length ?? 0) > 0 ? 'rw' : 'w'
}

/**
 * An open result on a connection. Either a streamed read (`cursor`: the engine computes rows as PULL asks for
 * them, see connection.ts) or the rows the engine returned whole (bounded by its budgets) with a position that
 * PULL pages through, so a small fetch size never sends more than it asked for.
 */
export class OpenResult {
  private next = 0
  readonly fields: string[]
  private readonly rows: DetachedValue[][]
  readonly cursor: ResultCursor | undefined

  constructor(
    readonly qid: number,
    readonly result: CypherResult,
    /** Final SUCCESS metadata besides `has_more`/`t_last`. */
    readonly summary: Map<string, PackValue>,
    readonly startedAt: number,
    /** Epoch ms no pull of a streamed result goes past (`tx_timeout`); undefined: each pull has the handler budget. */
    readonly deadline?: number,
  ) {
    this.fields = result.data?.columns ?? []
    this.rows = (result.data?.rows ?? []) as DetachedValue[][]
    this.cursor = result.cursor
  }

  /** Stops a streamed result's work (DISCARD, RESET, COMMIT, ROLLBACK, a closed connection). */
  close(reason: string): void {
    this.cursor?.close(reason)
    this.next = this.rows.length
  }

  /** Up to `n` next rows (`n < 0`: all that remain). */
  take(n: number): DetachedValue[][] {
    const end = n < 0 ? this.rows.length : Math.min(this.rows.length, this.next + n)
    const page = this.rows.slice(this.next, end)
    this.next = end
    return page
  }

  /** Skips what remains (DISCARD). */
  discard(n: number): void {
    this.next = n < 0 ? this.rows.length : Math.min(this.rows.length, this.next + n)
  }

  get hasMore(): boolean {
    return this.cursor !== undefined ? this.cursor.hasMore : this.next < this.rows.length
  }
}
