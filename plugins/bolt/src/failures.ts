import { isEngineError } from '@service/core'
import { CypherError, type CypherResult, neo4jStatusCode } from '@service/core/cypher'
import type { PackValue } from './packstream/structure.js'

/** A Bolt FAILURE: a Neo4j status code and a message (never a secret). */
export interface BoltFailure {
  code: string
  message: string
}

export const failure = (code: string, message: string): BoltFailure => ({ code, message })

export const UNKNOWN_ERROR = 'Neo.DatabaseError.General.UnknownError'
const UNAVAILABLE = 'Neo.TransientError.General.DatabaseUnavailable'

/** The door's own refusals, with the codes Neo4j gives them. */
export const Failures = {
  unauthorized: () =>
    failure(
      'Neo.ClientError.Security.Unauthorized',
      'The client is unauthorized due to authentication failure.',
    ),
  rateLimited: (retryAfterMs: number) =>
    failure(
      'Neo.TransientError.Request.ResourceExhaustion',
      `too many requests: retry after ${Math.max(1, Math.ceil(retryAfterMs / 1000))} s`,
    ),
  protocol: (message: string) => failure('Neo.ClientError.Request.Invalid', message),
  invalidFormat: (message: string) => failure('Neo.ClientError.Request.InvalidFormat', message),
  parameterType: (message: string) => failure('Neo.ClientError.Statement.TypeError', message),
  unknownResult: (qid: bigint) =>
    failure('Neo.ClientError.Request.Invalid', `no open result with qid ${qid} on this connection`),
  tooManyConnections: (max: number) =>
    failure(
      'Neo.TransientError.General.DatabaseUnavailable',
      `too many Bolt connections: this server accepts ${max} at once (SERVICE_BOLT_MAX_CONNECTIONS); retry later`,
    ),
  databaseNotFound: (name: string) =>
    failure('Neo.ClientError.Database.DatabaseNotFound', `database '${name}' is not a workspace name`),
}

/** The failure of a Cypher result that did not succeed (its first validation error). */
export function resultFailure(result: CypherResult): BoltFailure {
  const first = result.validation_errors[0]
  if (first === undefined) return failure('Neo.DatabaseError.General.UnknownError', `query ${result.status}`)
  return failure(first.neo4j_code, `${first.code}: ${first.message}`)
}

/**
 * The failure of a thrown error: engine errors carry their code (retryable ones map to transient codes, so
 * drivers retry); anything else is an unknown database error whose message stays in the log, not the wire.
 */
export function thrownFailure(error: unknown): BoltFailure {
  if (isEngineError(error)) {
    const known = neo4jStatusCode(error.code)
    // An engine condition with no Neo4j code of its own: unavailable ones are transient (drivers retry).
    const code = known === UNKNOWN_ERROR && error.category === 'unavailable' ? UNAVAILABLE : known
    return failure(code, `${error.code}: ${error.message}`)
  }
  if (error instanceof CypherError)
    return failure(neo4jStatusCode(error.code, error.phase), `${error.code}: ${error.message}`)
  return failure(UNKNOWN_ERROR, 'the server failed while answering the request')
}

/** GQL status by Neo4j status-code class, for Bolt 5.7+ failures. */
const GQL_STATUS: ReadonlyArray<[RegExp, string]> = [
  [/^Neo\.ClientError\.Statement\.SyntaxError$/, '42001'],
  [/^Neo\.ClientError\.Statement\.ParameterMissing$/, '42N51'],
  [/^Neo\.ClientError\.Statement\.(TypeError|ArgumentError)$/, '22N01'],
  [/^Neo\.ClientError\.Statement\.ArithmeticError$/, '22003'],
  [/^Neo\.ClientError\.Statement\.AccessMode$/, '08N11'],
  [/^Neo\.ClientError\.Security\./, '42NFF'],
  [/^Neo\.ClientError\.Statement\./, '42N00'],
  [/^Neo\.ClientError\.Transaction\./, '25N00'],
  [/^Neo\.ClientError\./, '50N00'],
  [/^Neo\.TransientError\./, '50N00'],
]

const classification = (code: string): string =>
  code.startsWith('Neo.ClientError.')
    ? 'CLIENT_ERROR'
    : code.startsWith('Neo.TransientError.')
      ? 'TRANSIENT_ERROR'
      : 'DATABASE_ERROR'

/** FAILURE metadata: `code`/`message` before Bolt 5.7; from 5.7 the GQL fields with `neo4j_code`. */
export function failureMetadata(f: BoltFailure, minor: number): Map<string, PackValue> {
  if (minor < 7) {
    return new Map<string, PackValue>([
      ['code', f.code],
      ['message', f.message],
    ])
  }
  const gql = GQL_STATUS.find(([pattern]) => pattern.test(f.code))?.[1] ?? '50N42'
  return new Map<string, PackValue>([
    ['neo4j_code', f.code],
    ['message', f.message],
    ['gql_status', gql],
    ['description', `error: ${f.message}`],
    [
      'diagnostic_record',
      new Map<string, PackValue>([
        ['OPERATION', ''],
        ['OPERATION_CODE', '0'],
        ['CURRENT_SCHEMA', '/'],
        ['_classification', classification(f.code)],
      ]),
    ],
  ])
}
