import type pg from 'pg'
import { EngineError } from '../../errors.js'

/**
 * `pg` is an optional peer of @service/core: only a PostgreSQL store loads it, so an embedded engine on files
 * installs nothing for a backend it does not use.
 */
let driver: Promise<typeof pg> | undefined
function loadDriver(): Promise<typeof pg> {
  driver ??= import('pg').then(
    (module) => module.default,
    (cause: unknown) => {
      driver = undefined
      throw new EngineError(
        'STORAGE_UNAVAILABLE',
        'PostgreSQL storage needs the `pg` package beside @service/core (npm install pg)',
        { cause },
      )
    },
  )
  return driver
}

/**
 * A new client of the store's database. Every client gets an error listener: a server restart ends the
 * session with an 'error' event, which must be a failure the store handles, never an unhandled crash.
 */
export async function connectClient(url: string, name: string, onError: (error: Error) => void) {
  const { Client } = await loadDriver()
  const client = new Client({ connectionString: url, application_name: name })
  client.on('error', onError)
  try {
    await client.connect()
  } catch (error) {
    await client.end().catch(() => {})
    throw error
  }
  return client
}

export type PgClient = pg.Client

/** The URL with its password replaced, for logs, reports and `check-config --print-effective`. */
export function redactPostgresUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:/@]*):[^@]*@/, '$1:<redacted>@')
}

/** Ends a client without waiting on a server that may be gone. */
export function dropClient(client: PgClient | null): void {
  if (client === null) return
  client.end().catch(() => {})
}
