import { describe, expect, it } from 'vitest'
import { openEngine } from '../runtime/index.js'

describe('request shape through the embedded door', () => {
  it('refuses a blank query and blank ids as HTTP does, and trims ids', async () => {
    const engine = await openEngine()
    const code = (call: Parameters<typeof engine.cypher>[0]) =>
      engine.cypher(call).then(
        () => null,
        (e: { code: string }) => e.code,
      )
    expect(await code({ query: '  ', mode: 'read' })).toBe('INVALID_QUERY')
    expect(await code({ query: 'RETURN 1', mode: 'read', workspaceId: ' ' })).toBe('INVALID_WORKSPACE_ID')
    expect(await code({ query: 'RETURN 1', mode: 'read', sessionId: '' })).toBe('INVALID_SESSION_ID')
    expect(await code({ query: 'RETURN 1', mode: 'read', budgetRef: ' ' })).toBe('INVALID_BUDGET_REF')
    await engine.write('CREATE (:T)', {}, { workspaceId: ' w ' })
    expect((await engine.read('MATCH (n:T) RETURN count(n)', {}, { workspaceId: 'w' })).data!.rows).toEqual([
      [1],
    ])
    await engine.close()
  })
})
