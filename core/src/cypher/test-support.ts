import { GraphCatalog } from '../graph/catalog.js'
import { CypherEngine } from './engine.js'

/** A fresh in-memory engine and a helper returning the rows of a query (failing loudly on an error). */
export function testEngine() {
  const engine = new CypherEngine(new GraphCatalog())
  const rows = async (query: string, params?: Record<string, unknown>): Promise<unknown[][]> => {
    const result = await engine.run({ query, mode: 'auto', ...(params ? { params } : {}) })
    if (result.status !== 'Success')
      throw new Error(`${result.validation_errors[0]?.code}: ${result.validation_errors[0]?.message}`)
    return result.data?.rows as unknown[][]
  }
  /** The single value of a one-row, one-column query. */
  const one = async (query: string, params?: Record<string, unknown>): Promise<unknown> =>
    (await rows(query, params))[0]?.[0]
  /** The error code a query fails with. */
  const error = async (query: string): Promise<string | undefined> => {
    const result = await engine.run({ query, mode: 'auto' })
    return result.status === 'Success' ? undefined : result.validation_errors[0]?.code
  }
  return { engine, rows, one, error }
}
