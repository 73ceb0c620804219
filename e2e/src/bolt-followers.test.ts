import { describe, expect, it } from 'vitest'
import { codeOf, driverFor, startBoltServer } from './bolt-support.js'
import { freePort } from './harness.js'
import { postgresForTests, postgresTestsRun } from './postgres-support.js'

const run = postgresTestsRun()

/** neo4j:// over a PostgreSQL primary and a read follower: ROUTE sends writes to one and reads to the other. */
describe.runIf(run)('Bolt routing with a PostgreSQL read follower', () => {
  const { cluster, env } = postgresForTests()

  it('routes writes to the primary and bookmarked reads to the follower, which waits for the commit', async () => {
    cluster().createDatabase('bolt_follow')
    const followerBolt = await freePort()
    const primary = await startBoltServer({
      env: env('bolt_follow', { SERVICE_BOLT_READ_ADDRESSES: `127.0.0.1:${followerBolt}` }),
    })
    const follower = await startBoltServer({
      env: env('bolt_follow', {
        SERVICE_STORAGE_ROLE: 'follower',
        SERVICE_PRIMARY_URL: primary.url,
        SERVICE_BOLT_PORT: String(followerBolt),
      }),
    })
    try {
      const driver = driverFor(primary, 'neo4j')
      for (let i = 0; i < 5; i++) {
        // executeQuery chains bookmarks: each read presents the write before it.
        await driver.executeQuery('CREATE (:Routed {i: $i})', { i })
        const { records } = await driver.executeQuery(
          'MATCH (n:Routed) RETURN count(n) AS c',
          {},
          { routing: 'READ' },
        )
        expect(records[0]?.get('c').toNumber()).toBe(i + 1)
      }
      const runsOn = async (server: typeof primary) => {
        const metrics = await server.request('/metrics')
        return Number(/service_bolt_messages_total\{message="RUN"\} (\d+)/.exec(metrics.text)?.[1] ?? 0)
      }
      expect(await runsOn(follower)).toBeGreaterThanOrEqual(5)
      // Straight to the follower, a write is refused as a cluster member refuses one (auto-commit: a managed
      // transaction would take it as a routing change and retry).
      const direct = driverFor(follower).session()
      expect(await codeOf(direct.run('CREATE (:Nope)'))).toBe('Neo.ClientError.Cluster.NotALeader')
      await direct.close()
    } finally {
      await follower.stop()
      await primary.stop()
    }
  }, 60_000)
})
