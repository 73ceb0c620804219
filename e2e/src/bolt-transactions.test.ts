import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Driver } from 'neo4j-driver'
import { generate } from 'selfsigned'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type BoltServer, codeOf, driverFor, neo4j, startBoltServer } from './bolt-support.js'
import { TOKEN } from './harness.js'

const count = async (driver: Driver, label: string, database?: string): Promise<number> => {
  const { records } = await driver.executeQuery(
    `MATCH (n:${label}) RETURN count(n) AS c`,
    {},
    database === undefined ? {} : { database },
  )
  return records[0]?.get('c').toNumber() ?? -1
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('Bolt explicit transactions', () => {
  let server: BoltServer
  let driver: Driver
  const dir = mkdtempSync(join(tmpdir(), 'svc-bolt-tx-'))

  beforeAll(async () => {
    server = await startBoltServer({
      env: {
        SERVICE_STORAGE_MODE: 'persistent',
        SERVICE_STORAGE_DIR: dir,
        SERVICE_BOLT_TX_IDLE_TIMEOUT_MS: '700',
      },
    })
    driver = driverFor(server)
  })
  afterAll(async () => {
    await server?.stop()
  })

  it('commits atomically: invisible outside until COMMIT, own writes visible inside, a bookmark after', async () => {
    // count() is a driver-managed write-mode transaction that only reads: it must not wait for this one.
    const session = driver.session()
    const tx = session.beginTransaction()
    await tx.run('CREATE (:Atomic {i: 1})')
    await tx.run('CREATE (:Atomic {i: 2})')
    const inside = await tx.run('MATCH (n:Atomic) RETURN count(n) AS c')
    expect(inside.records[0]?.get('c').toNumber()).toBe(2)
    expect(await count(driver, 'Atomic')).toBe(0)
    await tx.commit()
    expect(await count(driver, 'Atomic')).toBe(2)
    const [bookmark] = session.lastBookmarks()
    expect(bookmark).toMatch(/^commit-seq:\d+$/)
    await session.close()
    // Presenting the bookmark reads the write (read-your-writes).
    const reader = driver.session({ bookmarks: [bookmark!] })
    const read = await reader.run('MATCH (n:Atomic) RETURN count(n) AS c')
    expect(read.records[0]?.get('c').toNumber()).toBe(2)
    await reader.close()
  })

  it('discards on ROLLBACK and when the connection drops', async () => {
    const session = driver.session()
    const tx = session.beginTransaction()
    await tx.run('CREATE (:RolledBack)')
    await tx.rollback()
    await session.close()
    expect(await count(driver, 'RolledBack')).toBe(0)

    const dropping = driverFor(server)
    const held = dropping.session().beginTransaction()
    await held.run('CREATE (:Dropped)')
    await dropping.close()
    await sleep(100)
    expect(await count(driver, 'Dropped')).toBe(0)
    // The workspace's write turn is free again.
    await driver.executeQuery('CREATE (:AfterDrop)')
    expect(await count(driver, 'AfterDrop')).toBe(1)
  })

  it('rolls an idle transaction back, and one past its tx_timeout', async () => {
    const session = driver.session()
    const idle = session.beginTransaction()
    await idle.run('CREATE (:Idle)')
    await sleep(1200)
    expect(await codeOf(idle.run('RETURN 1'))).toBe('Neo.ClientError.Transaction.TransactionTimedOut')
    await session.close()
    expect(await count(driver, 'Idle')).toBe(0)

    const timed = driver.session()
    const tx = timed.beginTransaction({ timeout: 300 })
    await tx.run('CREATE (:Timed)')
    await sleep(500)
    expect(await codeOf(tx.run('RETURN 1'))).toBe('Neo.ClientError.Transaction.TransactionTimedOut')
    await timed.close()
    expect(await count(driver, 'Timed')).toBe(0)
  })

  it('runs managed transactions (executeWrite / executeRead)', async () => {
    const session = driver.session()
    const created = await session.executeWrite(async (tx) => {
      await tx.run('CREATE (:Managed {v: 1})')
      const result = await tx.run('MATCH (m:Managed) RETURN count(m) AS c')
      return result.records[0]?.get('c').toNumber()
    })
    expect(created).toBe(1)
    const read = await session.executeRead((tx) => tx.run('MATCH (m:Managed) RETURN m.v AS v'))
    expect(read.records[0]?.get('v').toNumber()).toBe(1)
    await session.close()
  })

  it('leaves nothing of an open transaction after kill -9; what was committed survives', async () => {
    await driver.executeQuery('CREATE (:Survivor)')
    const session = driver.session()
    const tx = session.beginTransaction()
    await tx.run('CREATE (:Ghost)')
    await tx.run('UNWIND range(1, 50) AS i CREATE (:Ghost {i: i})')
    await server.kill()
    await driver.close().catch(() => {})
    server = await startBoltServer({
      env: { SERVICE_STORAGE_MODE: 'persistent', SERVICE_STORAGE_DIR: dir },
    })
    driver = driverFor(server)
    expect(await count(driver, 'Ghost')).toBe(0)
    expect(await count(driver, 'Survivor')).toBe(1)
    expect(await count(driver, 'Atomic')).toBe(2)
  })

  it('drains on SIGTERM: connections end, an open transaction rolls back, the process exits 0', async () => {
    const session = driver.session()
    const tx = session.beginTransaction()
    await tx.run('CREATE (:Drained)')
    expect(await server.stop()).toBe(0)
    await driver.close().catch(() => {})
    server = await startBoltServer({
      env: { SERVICE_STORAGE_MODE: 'persistent', SERVICE_STORAGE_DIR: dir },
    })
    driver = driverFor(server)
    expect(await count(driver, 'Drained')).toBe(0)
    expect(await count(driver, 'Survivor')).toBe(1)
  })
})

describe('Bolt managed-transaction retries', () => {
  it('retries a transient refusal (the shared rate limit) until it commits', async () => {
    const server = await startBoltServer({
      env: { SERVICE_HTTP_RATE_LIMIT_PER_SECOND: '2', SERVICE_HTTP_RATE_LIMIT_BURST: '2' },
    })
    try {
      const driver = driverFor(server, 'bolt', { maxTransactionRetryTime: 15_000 })
      const session = driver.session()
      for (let i = 0; i < 4; i++)
        await session.executeWrite((tx) => tx.run('CREATE (:Retried {i: $i})', { i }))
      await session.close()
      const metrics = await server.request('/metrics')
      expect(metrics.text).toMatch(
        /service_bolt_failures_total\{code="Neo.TransientError.Request.ResourceExhaustion"\} [1-9]/,
      )
      expect(await count(driver, 'Retried')).toBe(4)
    } finally {
      await server.stop()
    }
  }, 30_000)
})

describe('Bolt listener limits and TLS', () => {
  it('refuses a connection past SERVICE_BOLT_MAX_CONNECTIONS with a clear message', async () => {
    const server = await startBoltServer({ env: { SERVICE_BOLT_MAX_CONNECTIONS: '1' } })
    try {
      const first = driverFor(server)
      const holding = first.session().beginTransaction()
      await holding.run('RETURN 1')
      const second = neo4j.driver(server.boltUrl(), neo4j.auth.basic('x', TOKEN), {
        connectionAcquisitionTimeout: 3_000,
        maxTransactionRetryTime: 0,
      })
      const failure = await second.verifyConnectivity().catch((error: Error) => error)
      await second.close()
      expect(String((failure as Error).message)).toContain('too many Bolt connections')
      await holding.rollback()
    } finally {
      await server.stop()
    }
  })

  it('speaks bolt+s with the server certificate when TLS is configured', async () => {
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
      keySize: 2048,
      algorithm: 'sha256',
    })
    const tlsDir = mkdtempSync(join(tmpdir(), 'svc-bolt-tls-'))
    writeFileSync(join(tlsDir, 'cert.pem'), pems.cert)
    writeFileSync(join(tlsDir, 'key.pem'), pems.private)
    const server = await startBoltServer({
      https: true,
      env: {
        SERVICE_TLS_CERTIFICATE_FILE: join(tlsDir, 'cert.pem'),
        SERVICE_TLS_PRIVATE_KEY_FILE: join(tlsDir, 'key.pem'),
      },
    })
    try {
      // bolt+ssc: encrypted, trusting the self-signed certificate.
      const secure = driverFor(server, 'bolt+ssc')
      const { records } = await secure.executeQuery('RETURN 7 AS n')
      expect(records[0]?.get('n').toNumber()).toBe(7)
      const routed = driverFor(server, 'neo4j+ssc')
      await routed.verifyConnectivity()
      const plain = neo4j.driver(server.boltUrl('bolt'), neo4j.auth.basic('x', TOKEN), {
        connectionTimeout: 3_000,
      })
      await expect(plain.verifyConnectivity()).rejects.toThrow()
      await plain.close()
      const health = await server.request<{ bolt: { tls: boolean } }>('/health')
      expect(health.json.bolt.tls).toBe(true)
    } finally {
      await server.stop()
    }
  })
})
