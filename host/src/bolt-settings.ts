import type { EnvReader } from './env-reader.js'

export interface BoltSettings {
  /** SERVICE_BOLT_ENABLED: the Bolt listener runs unless this is false. */
  enabled: boolean
  /** SERVICE_BOLT_PORT on the HTTP bind host (0: any free port, reported in /health). */
  port: number
  maxConnections: number
  /** A connection with no traffic for this long is closed. */
  idleTimeoutMs: number
  /** An explicit transaction with no statement for this long rolls back. */
  txIdleTimeoutMs: number
  /** The largest Bolt message accepted (its chunks together). */
  maxMessageBytes: number
  /** `host:port` addresses of read followers that ROUTE names as READ on a PostgreSQL primary. */
  readAddresses: string[]
  /** Records one streamed Bolt result may deliver (the engine's `maxStreamedRecords`). */
  maxStreamedRecords: number
}

const ADDRESS = /^[A-Za-z0-9.\-[\]:]+:\d{1,5}$/

/** SERVICE_BOLT_* settings; problems join the others in the reader. */
export function readBoltSettings(r: EnvReader, httpPort: number): BoltSettings {
  const enabled = r.boolean('SERVICE_BOLT_ENABLED', true)
  const port = r.integer('SERVICE_BOLT_PORT', 7687, 0, 65535)
  if (enabled && port !== 0 && port === httpPort) {
    r.problem(`SERVICE_BOLT_PORT ${port} is the HTTP port too: give Bolt its own (default 7687)`)
  }
  const readAddresses = (r.string('SERVICE_BOLT_READ_ADDRESSES') ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
  for (const address of readAddresses) {
    if (!ADDRESS.test(address)) r.problem(`SERVICE_BOLT_READ_ADDRESSES entry '${address}' must be host:port`)
  }
  return {
    enabled,
    port,
    maxConnections: r.integer('SERVICE_BOLT_MAX_CONNECTIONS', 256, 1, 100_000),
    idleTimeoutMs: r.integer('SERVICE_BOLT_IDLE_TIMEOUT_MS', 600_000, 1_000, 86_400_000),
    txIdleTimeoutMs: r.integer('SERVICE_BOLT_TX_IDLE_TIMEOUT_MS', 60_000, 100, 86_400_000),
    maxMessageBytes: r.integer('SERVICE_BOLT_MAX_MESSAGE_BYTES', 16 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    readAddresses,
    maxStreamedRecords: r.integer('SERVICE_BOLT_MAX_STREAMED_RECORDS', 5_000_000, 1, 1_000_000_000),
  }
}
