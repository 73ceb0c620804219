import { afterEach, describe, expect, it } from 'vitest'
import type { Engine } from '../runtime/engine.js'
import { openEngine } from '../runtime/open-engine.js'

const W = 'workspace--tx'
let engine: Engine

afterEach(async () => {
  await engine?.close()
})

const count = async (label: string) => {
  const result = await engine.read(`MATCH (n:${label}) RETURN count(n) AS c`, {}, { workspaceId: W })
  return result.data?.rows[0]?.[0]
}

describe('explicit transactions', () => {
  it('commits every statement at once, as one commit sequence; reads inside see its writes', async () => {
    engine = await openEngine()
    const before = engine.currentSequence()
    const tx = engine.beginTransaction({ workspaceId: W, mode: 'write', idleTimeoutMs: 5000 })
    await tx.run({ query: 'CREATE (:A {i: 1})' })
    await tx.run({ query: 'CREATE (:A {i: 2})' })
    const inside = await tx.run({ query: 'MATCH (a:A) RETURN count(a)' })
    expect(inside.data?.rows).toEqual([[2]])
    expect(await count('A')).toBe(0)
    const { sequence } = await tx.commit()
    expect(sequence).toBe(before + 1)
    expect(engine.currentSequence()).toBe(before + 1)
    expect(await count('A')).toBe(2)
    expect(tx.state()).toBe('committed')
    await expect(tx.run({ query: 'RETURN 1' })).rejects.toMatchObject({ code: 'TRANSACTION_CLOSED' })
  })

  it('holds declared constraints at commit, and refuses schema commands and batched writes inside', async () => {
    engine = await openEngine()
    await engine.write('CREATE CONSTRAINT u FOR (t:Tool) REQUIRE t.name IS UNIQUE', {}, { workspaceId: W })
    await engine.write("CREATE (:Tool {name: 'nmap'})", {}, { workspaceId: W })
    const batched = engine.beginTransaction({ workspaceId: W, mode: 'write', idleTimeoutMs: 5000 })
    const refused = await batched.run({ query: 'UNWIND [1] AS i CALL (i) { CREATE (:X) } IN TRANSACTIONS' })
    expect(refused.validation_errors[0]?.code).toBe('IMPLICIT_TRANSACTION_REQUIRED')
    await batched.rollback()
    const tx = engine.beginTransaction({ workspaceId: W, mode: 'write', idleTimeoutMs: 5000 })
    await tx.run({ query: "CREATE (:Tool {name: 'nmap'})" })
    await expect(tx.commit()).rejects.toMatchObject({ code: 'CONSTRAINT_VALIDATION_FAILED' })
    expect(await count('Tool')).toBe(1)
  })

  it('leaves nothing after a rollback, and frees the write turn', async () => {
    engine = await openEngine()
    const tx = engine.beginTransaction({ workspaceId: W, mode: 'write', idleTimeoutMs: 5000 })
    await tx.run({ query: 'CREATE (:B)' })
    const waiting = engine.write('CREATE (:C)', {}, { workspaceId: W })
    await tx.rollback()
    await waiting
    expect(await count('B')).toBe(0)
    expect(await count('C')).toBe(1)
  })

  it('rolls back by itself when idle, and a doomed transaction refuses to commit', async () => {
    engine = await openEngine()
    const idle = engine.beginTransaction({ workspaceId: W, mode: 'write', idleTimeoutMs: 50 })
    await idle.run({ query: 'CREATE (:D)' })
    await new Promise((resolve) => setTimeout(resolve, 120))
    expect(idle.state()).toBe('timed_out')
    await expect(idle.run({ query: 'RETURN 1' })).rejects.toMatchObject({ code: 'TRANSACTION_TIMED_OUT' })
    expect(await count('D')).toBe(0)

    const doomed = engine.beginTransaction({ workspaceId: W, mode: 'write', idleTimeoutMs: 5000 })
    await doomed.run({ query: 'CREATE (:E)' })
    const failed = await doomed.run({ query: 'RETURN 1 / 0' })
    expect(failed.status).toBe('Rejected')
    await expect(doomed.commit()).rejects.toMatchObject({ code: 'TRANSACTION_FAILED' })
    expect(await count('E')).toBe(0)
  })

  it('holds nothing until its first write: a transaction that only reads does not block writers', async () => {
    engine = await openEngine()
    const reading = engine.beginTransaction({ workspaceId: W, mode: 'write', idleTimeoutMs: 5000 })
    await reading.run({ query: 'MATCH (n) RETURN count(n)' })
    await engine.write('CREATE (:F)', {}, { workspaceId: W })
    expect(await reading.commit()).toEqual({ sequence: null })
    // A read-mode transaction refuses writes.
    const readOnly = engine.beginTransaction({ workspaceId: W, mode: 'read', idleTimeoutMs: 5000 })
    const refused = await readOnly.run({ query: 'CREATE (:G)' })
    expect(refused.validation_errors[0]?.code).toBe('WRITE_PERMISSION_REQUIRED')
    await readOnly.rollback()
  })

  it('runs a schema command on its own, as Neo4j does, and refuses mixing it with data writes', async () => {
    engine = await openEngine()
    const schema = engine.beginTransaction({ workspaceId: W, mode: 'write', idleTimeoutMs: 5000 })
    expect(
      (await schema.run({ query: 'CREATE INDEX i IF NOT EXISTS FOR (n:Tool) ON (n.kind)' })).status,
    ).toBe('Success')
    const mixed = await schema.run({ query: 'CREATE (:Tool)' })
    expect(mixed.validation_errors[0]).toMatchObject({
      code: 'IMPLICIT_TRANSACTION_REQUIRED',
      neo4j_code: 'Neo.ClientError.Transaction.ForbiddenDueToTransactionType',
    })
    await schema.rollback()
    const indexes = await engine.read(
      'SHOW INDEXES YIELD name RETURN collect(name) AS names',
      {},
      { workspaceId: W },
    )
    expect(JSON.stringify(indexes.data?.rows)).toContain('"i"')
    expect(await count('Tool')).toBe(0)

    const data = engine.beginTransaction({ workspaceId: W, mode: 'write', idleTimeoutMs: 5000 })
    await data.run({ query: 'CREATE (:Tool)' })
    const late = await data.run({ query: 'CREATE INDEX j FOR (n:Tool) ON (n.x)' })
    expect(late.validation_errors[0]?.code).toBe('IMPLICIT_TRANSACTION_REQUIRED')
    await data.rollback()
  })

  it('returns detached rows when asked: typed integers, nodes with their labels', async () => {
    engine = await openEngine()
    const tx = engine.beginTransaction({ workspaceId: W, mode: 'write', idleTimeoutMs: 5000 })
    const result = await tx.run({ query: 'CREATE (n:H {x: 1, y: 1.5}) RETURN n, 2 AS two', rows: 'detached' })
    await tx.commit()
    const [node, two] = result.data!.rows[0] as [
      { labels: string[]; properties: Map<string, unknown> },
      bigint,
    ]
    expect(two).toBe(2n)
    expect(node.labels).toEqual(['H'])
    expect(node.properties.get('x')).toBe(1n)
    expect(node.properties.get('y')).toBe(1.5)
  })
})

describe('explicit transactions waiting for the write turn', () => {
  it("gives up past the statement's deadline while another holds the turn, and applies nothing", async () => {
    engine = await openEngine()
    const holder = engine.beginTransaction({ workspaceId: W, mode: 'write', idleTimeoutMs: 5000 })
    await holder.run({ query: 'CREATE (:Holder)' })
    const waiter = engine.beginTransaction({ workspaceId: W, mode: 'write', idleTimeoutMs: 5000 })
    await expect(waiter.run({ query: 'CREATE (:Waiter)', deadline: Date.now() + 50 })).rejects.toMatchObject({
      code: 'WRITE_TURN_TIMEOUT',
    })
    expect(waiter.state()).toBe('failed')
    await holder.commit()
    // The waiter's turn came after the holder's commit and applied nothing.
    await engine.write('CREATE (:After)', {}, { workspaceId: W })
    expect(await count('Holder')).toBe(1)
    expect(await count('Waiter')).toBe(0)
    expect(await count('After')).toBe(1)
  })
})
