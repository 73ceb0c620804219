/** Bolt e2e helpers: a server with Bolt on at a free port, and drivers (6.x, and 5.x under an alias). */
import neo4j, { type Driver } from 'neo4j-driver'
import neo4j5 from 'neo4j-driver-5'
import { afterAll } from 'vitest'
import { boltEnv, type RunningServer, type StartOptions, startServer, TOKEN } from './harness.js'

export { neo4j, neo4j5 }

export interface BoltServer extends RunningServer {
  boltPort: number
  boltUrl(scheme?: string): string
}

const drivers = new Set<{ close(): Promise<void> }>()
afterAll(async () => {
  await Promise.all([...drivers].map((driver) => driver.close().catch(() => {})))
})

/** Starts the server with Bolt listening on a free port; `env` adds or overrides settings. */
export async function startBoltServer(options: StartOptions = {}): Promise<BoltServer> {
  const env = { ...(await boltEnv()), ...options.env }
  const server = await startServer({ ...options, env })
  const boltPort = Number(env.SERVICE_BOLT_PORT)
  return Object.assign(server, {
    boltPort,
    boltUrl: (scheme = 'bolt') => `${scheme}://127.0.0.1:${boltPort}`,
  })
}

type DriverConfig = Parameters<typeof neo4j.driver>[2]

/** A 6.x driver with the bearer token as a basic password (closed when the file ends). */
export function driverFor(server: BoltServer, scheme = 'bolt', config: DriverConfig = {}): Driver {
  const driver = neo4j.driver(server.boltUrl(scheme), neo4j.auth.basic('anyone', TOKEN), {
    connectionAcquisitionTimeout: 10_000,
    ...config,
  })
  drivers.add(driver)
  return driver
}

/** A 5.x driver the same way. */
export function driver5For(server: BoltServer, scheme = 'bolt') {
  const driver = neo4j5.driver(server.boltUrl(scheme), neo4j5.auth.basic('anyone', TOKEN))
  drivers.add(driver)
  return driver
}

/** The Neo4j status code of a rejected promise (fails the test when it resolves). */
export async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
  } catch (error) {
    return (error as { code?: string }).code ?? String(error)
  }
  throw new Error('expected a failure')
}
