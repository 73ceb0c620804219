import type { ClientBase } from 'pg'

/**
 * The tables the store keeps in PostgreSQL. `service_wal` holds one JsonLinesV2 line per record (the same
 * self-checking line the file log writes, without its newline); `service_owner` is the single ownership row
 * whose epoch fences every append; checkpoints are images of JSON lines in chunks.
 */
export const SCHEMA_SQL = [
  `CREATE TABLE IF NOT EXISTS service_owner (
     id integer PRIMARY KEY CHECK (id = 1),
     graph_id text NOT NULL,
     epoch bigint NOT NULL,
     holder text NOT NULL,
     updated_at timestamptz NOT NULL DEFAULT now()
   )`,
  `CREATE TABLE IF NOT EXISTS service_wal (
     seq bigint PRIMARY KEY,
     epoch bigint NOT NULL,
     line text NOT NULL
   )`,
  `CREATE TABLE IF NOT EXISTS service_checkpoint (
     sequence bigint PRIMARY KEY,
     created_at timestamptz NOT NULL,
     records bigint NOT NULL,
     sha256 text NOT NULL,
     complete boolean NOT NULL
   )`,
  `CREATE TABLE IF NOT EXISTS service_checkpoint_chunk (
     sequence bigint NOT NULL,
     chunk integer NOT NULL,
     lines text NOT NULL,
     PRIMARY KEY (sequence, chunk)
   )`,
]

/** The session advisory lock the primary holds (an arbitrary constant, shared by every server of a graph). */
export const OWNER_LOCK_KEY = 7_215_340_911

/** Channel the primary notifies after each committed batch (payload: its last sequence). */
export const WAL_CHANNEL = 'service_wal'

/** Creates the tables once; concurrent starters serialise on a transaction-scoped advisory lock. */
export async function ensureSchema(client: ClientBase): Promise<void> {
  await client.query('BEGIN')
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [OWNER_LOCK_KEY + 1])
    for (const statement of SCHEMA_SQL) await client.query(statement)
    await client.query('COMMIT')
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {})
    throw error
  }
}

/**
 * The fenced append: rows are inserted only while the owner row still carries `epoch` ($3). The owner row is
 * locked FOR SHARE, so a takeover's epoch bump waits for this transaction, and an append that starts after
 * the bump sees the new epoch and inserts nothing. The batch travels as one text of newline-joined lines
 * ($2, JSON lines hold no raw newline) numbered from the first sequence ($1): no per-element array escaping.
 */
export const FENCED_INSERT_SQL = `WITH owner AS (
    SELECT epoch FROM service_owner WHERE id = 1 AND epoch = $3 FOR SHARE
  )
  INSERT INTO service_wal (seq, epoch, line)
  SELECT $1::bigint + t.n - 1, owner.epoch, t.line
  FROM unnest(string_to_array($2::text, E'\\n')) WITH ORDINALITY AS t(line, n), owner`
