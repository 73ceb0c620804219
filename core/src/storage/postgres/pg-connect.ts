import pg from 'pg'

/**
 * A new client of the store's database. Every client gets an error listener: a server restart ends the
 * session with an 'error' event, which must be a failure the store handles, never an unhandled crash.
 */
export async function connectClient(url: string, name: string, onError: (error: Error) => void) {
  const client = new pg.Client({ connectionString: url, application_name: name })
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

/** Ends a client without waiting on a server that may be gone. */
export function dropClient(client: PgClient | null): void {
  if (client === null) return
  client.end().catch(() => {})
}
