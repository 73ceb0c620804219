import type { BeginOptions, CypherCall, ExplicitTransaction } from '@service/core'
import { GraphCatalog } from '@service/core'
import { CypherEngine, type CypherResult, emptySummary, type ResultCursor } from '@service/core/cypher'
import type { BoltBackend } from './backend.js'
import { Failures } from './failures.js'

/** `n` rows of one integer column `i`. */
export const integerRows = (n: number): CypherResult => ({
  status: 'Success',
  data: { columns: ['i'], rows: Array.from({ length: n }, (_, i) => [BigInt(i)]) },
  mutation_summary: emptySummary(),
  validation_errors: [],
  warnings: [],
})

const rowsAsked = (query: string): number => Number(query.split(' ')[1] ?? 0) || 0

export interface ScriptedBackend {
  backend: BoltBackend
  /** Auto-commit calls, in order. */
  calls: CypherCall[]
  /** Transactions begun: their options, statements and how they ended. */
  txs: { options: BeginOptions; statements: string[]; ended: 'commit' | 'rollback' | null }[]
  /** Cursors of `STREAM n` statements, in order, and the slices run through `readSlice`. */
  cursors: ResultCursor[]
  slices: number
}

/**
 * A backend for the state machine's tests and the wire fuzzer: `RETURN n` answers n rows, `STREAM n` a streamed
 * result of n integers (a cursor of an empty graph's engine), `FAIL` a syntax error; the password `secret` is
 * the token; it records what it was asked.
 */
export function scriptedBackend(): ScriptedBackend {
  const calls: CypherCall[] = []
  const txs: ScriptedBackend['txs'] = []
  const cursors: ResultCursor[] = []
  const engine = new CypherEngine(new GraphCatalog(), { streamPrefetchRows: 0 })
  const streamed = async (query: string): Promise<CypherResult> => {
    const { result } = await engine.execute({
      query: `UNWIND range(1, ${rowsAsked(query)}) AS i RETURN i`,
      mode: 'read',
      rows: 'stream',
    })
    if (result.cursor !== undefined) cursors.push(result.cursor)
    return result
  }
  const scripted: ScriptedBackend = { backend: undefined as never, calls, txs, cursors, slices: 0 }
  const backend: BoltBackend = {
    authenticate: (auth) => (auth.get('credentials') === 'secret' ? null : Failures.unauthorized()),
    admit: () => null,
    workspaceOf: (database) => database ?? 'default',
    async run(call) {
      calls.push(call)
      if (call.query.startsWith('STREAM ')) return streamed(call.query)
      if (call.query !== 'FAIL') return integerRows(rowsAsked(call.query))
      return {
        ...integerRows(0),
        status: 'ValidationFailed',
        data: null,
        validation_errors: [
          {
            code: 'CYPHER_SYNTAX_ERROR',
            message: 'bad',
            neo4j_code: 'Neo.ClientError.Statement.SyntaxError',
          },
        ],
      }
    },
    begin(options) {
      const record: ScriptedBackend['txs'][number] = { options, statements: [], ended: null }
      txs.push(record)
      const tx: ExplicitTransaction = {
        workspaceId: options.workspaceId,
        mode: options.mode,
        state: () => 'open',
        run: async (statement) => {
          record.statements.push(statement.query)
          if (statement.query.startsWith('STREAM ')) return streamed(statement.query)
          return integerRows(rowsAsked(statement.query))
        },
        commit: async () => {
          record.ended = 'commit'
          return { sequence: 7 }
        },
        rollback: async () => {
          record.ended ??= 'rollback'
        },
      }
      return tx
    },
    awaitBookmarks: async () => {},
    bookmark: () => 'commit-seq:7',
    routingTable: (_database, address) => [{ addresses: [address], role: 'ROUTE' }],
    async readSlice(_workspaceId, slice) {
      scripted.slices++
      return slice()
    },
  }
  scripted.backend = backend
  return scripted
}
