import { DEFAULT_DATABASE_NAME } from '@service/core'
import type { CypherResult } from '@service/core/cypher'
import type { BoltBackend } from './backend.js'
import {
  MessageShapeError,
  mapField,
  optionalInteger,
  optionalString,
  optionalStringList,
  type RequestMessage,
  stringField,
} from './messages.js'
import type { PackValue } from './packstream/structure.js'
import { queryType, statsOf } from './result-stream.js'
import { parameterValue } from './values.js'

/** What RUN (auto-commit) and BEGIN carry in their extra map. */
export interface TransactionExtras {
  database: string | undefined
  /** Access mode `r`: a forced read. */
  read: boolean
  bookmarks: string[]
  /** `tx_metadata.session_id`: the session whose audit log the statements join. */
  sessionId: string | undefined
  /** `tx_timeout` in ms, when given and positive. */
  timeoutMs: number | undefined
}

/** Reads the extra map; impersonation (`imp_user`) is refused, there being one principal. */
export function transactionExtras(extra: Map<string, PackValue>): TransactionExtras {
  if (optionalString(extra, 'imp_user') !== undefined)
    throw new MessageShapeError('impersonation (imp_user) is not supported by this server')
  const metadata = extra.get('tx_metadata')
  const timeout = optionalInteger(extra, 'tx_timeout')
  return {
    database: optionalString(extra, 'db'),
    read: optionalString(extra, 'mode') === 'r',
    bookmarks: optionalStringList(extra, 'bookmarks'),
    sessionId: metadata instanceof Map ? optionalString(metadata, 'session_id') : undefined,
    timeoutMs: timeout !== undefined && timeout > 0 ? timeout : undefined,
  }
}

/** RUN's query and parameters as the engine takes them. */
export function statementOf(message: RequestMessage): { query: string; params: Record<string, unknown> } {
  const query = stringField(message, 0)
  const params: Record<string, unknown> = Object.create(null)
  for (const [name, value] of mapField(message, 1)) params[name] = parameterValue(value, `$${name}`)
  return { query, params }
}

/** A statement's deadline: `tx_timeout` when given, never past the handler budget. */
export const deadlineOf = (timeoutMs: number | undefined, startedAt: number, budgetMs: number): number =>
  startedAt + Math.min(timeoutMs ?? budgetMs, budgetMs)

/** The final SUCCESS of a result: query type, database, `stats` when it wrote, and a bookmark if given. */
export function completionSummary(
  result: CypherResult,
  database: string | undefined,
  bookmark: string | null,
): Map<string, PackValue> {
  const summary = new Map<string, PackValue>()
  if (bookmark !== null) summary.set('bookmark', bookmark)
  summary.set('type', queryType(result))
  summary.set('db', database ?? DEFAULT_DATABASE_NAME)
  const stats = statsOf(result.mutation_summary)
  if (stats !== null) summary.set('stats', stats)
  return summary
}

/**
 * ROUTE's routing table: the backend's servers for `db` in the extra map (or the default database), at the
 * address the client asked about or, when it names none, the one it reached.
 */
export function routingTableOf(
  message: RequestMessage,
  backend: BoltBackend,
  localAddress: string,
): Map<string, PackValue> {
  const routing = mapField(message, 0)
  const database = optionalString(mapField(message, 2), 'db') ?? undefined
  backend.workspaceOf(database)
  const address = optionalString(routing, 'address') ?? localAddress
  const servers = backend.routingTable(database, address).map(
    (server) =>
      new Map<string, PackValue>([
        ['addresses', server.addresses],
        ['role', server.role],
      ]),
  )
  return new Map<string, PackValue>([
    ['ttl', 300n],
    ['db', database ?? DEFAULT_DATABASE_NAME],
    ['servers', servers],
  ])
}
