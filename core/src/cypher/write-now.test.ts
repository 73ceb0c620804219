import { describe, expect, it } from 'vitest'
import { GraphCatalog } from '../graph/catalog.js'
import { CypherEngine } from './engine.js'

describe('an auto-commit write run at once', () => {
  it('publishes synchronously when the writer queue is idle, and defers to the queue otherwise', async () => {
    const catalog = new GraphCatalog()
    let release: () => void = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    let slow = false
    const engine = new CypherEngine(catalog, { beforePublish: () => (slow ? gate : undefined) })
    const request = {
      query: 'CREATE (:N {v: $v})',
      params: { v: 1 },
      mode: 'write' as const,
      workspaceId: 'w',
    }
    const now = engine.executeWriteNow(request)
    expect(now?.result.status).toBe('Success')
    expect(now?.result.mutation_summary.created_nodes).toBe(1)
    expect(catalog.workspace('w').nodeCount()).toBe(1) // published before anything awaited

    slow = true
    const queued = engine.execute({ ...request, params: { v: 2 } })
    // A write is in the queue (waiting for its asynchronous beforePublish): the next one takes its turn.
    expect(engine.executeWriteNow({ ...request, params: { v: 3 } })).toBeUndefined()
    release()
    expect((await queued).result.status).toBe('Success')
    slow = false
    await new Promise<void>((resolve) => setImmediate(resolve))
    expect(engine.executeWriteNow({ ...request, params: { v: 3 } })?.result.status).toBe('Success')
    expect(catalog.workspace('w').nodeCount()).toBe(3)
  })

  it('answers a compile error and a refused write as the queued path does', () => {
    const engine = new CypherEngine(new GraphCatalog(), { beforePublish: () => undefined })
    const bad = engine.executeWriteNow({ query: 'CREATE (:N', mode: 'write', workspaceId: 'w' })
    expect(bad?.result.status).toBe('ValidationFailed')
    const missing = engine.executeWriteNow({ query: 'CREATE (:N {v: $v})', mode: 'write', workspaceId: 'w' })
    expect(missing?.result.validation_errors[0]?.code).toBe('PARAMETER_MISSING')
  })

  it('refuses a beforePublish that returns a promise (it must be synchronous here)', () => {
    const catalog = new GraphCatalog()
    const engine = new CypherEngine(catalog, { beforePublish: async () => {} })
    const outcome = engine.executeWriteNow({ query: 'CREATE (:N)', mode: 'write', workspaceId: 'w' })
    expect(outcome?.result.status).toBe('Rejected')
    expect(catalog.workspace('w').nodeCount()).toBe(0)
  })
})
