import { type CypherResult, type Engine, ERROR_CATALOG, isEngineError } from '@service/core'
import { InvariantViolation, invariant } from './target.js'

/**
 * Invariants shared by the targets. Every failure the engine reports must be an `EngineError` with a
 * code; a JavaScript error (TypeError, RangeError, stack overflow) escaping or being wrapped is a defect.
 */
export async function engineFailureOnly<T>(work: () => Promise<T>): Promise<T | undefined> {
  try {
    return await work()
  } catch (error) {
    if (error instanceof InvariantViolation) throw error
    // A code outside the catalog is a defect too: a door could not map it to a status.
    if (isEngineError(error) && Object.hasOwn(ERROR_CATALOG, error.code)) return undefined
    throw new InvariantViolation(`non-engine failure: ${describe(error)}`)
  }
}

export const describe = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}\n${error.stack ?? ''}` : String(error)

/** Codes the Cypher engine only produces by wrapping an unexpected JavaScript error. */
export function cypherResultIsClean(result: CypherResult): void {
  for (const error of result.validation_errors) {
    invariant(typeof error.code === 'string' && error.code !== '', 'validation error without a code')
    invariant(error.code !== 'CYPHER_RUNTIME_ERROR', `unexpected JavaScript error: ${error.message}`)
    invariant(!/nests too deeply/.test(error.message), `stack overflow caught as a budget: ${error.message}`)
  }
  if (result.status !== 'Success') {
    invariant(result.data === null, 'a failed query returned data')
    invariant(result.validation_errors.length > 0, 'a failed query has no validation error')
  }
}

/** A deterministic digest of a workspace's whole graph: labels, properties, relationships. */
export function graphDigest(engine: Engine, workspaceId = 'workspace--standalone-default'): Promise<string> {
  return engine.readGraph(workspaceId, (store) => {
    const name = (id: number) => store.names.name(id)
    const props = (map: ReadonlyMap<number, unknown> | undefined) =>
      [...(map ?? new Map())].map(([k, v]) => [name(k), typeof v === 'bigint' ? `${v}n` : v]).sort()
    const nodes = [...store.allNodeIds()].map((id) => {
      const node = store.node(id)
      return [id, node?.labels.map(name).sort(), props(node?.props)]
    })
    const rels = [...store.allRelIds()].map((id) => [
      id,
      name(store.relType(id)),
      store.relStart(id),
      store.relEnd(id),
      props(store.relProps(id)),
    ])
    return JSON.stringify([nodes, rels], (_k, v) => (typeof v === 'bigint' ? `${v}n` : v))
  })
}
