import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import { invalid, memoryError } from './errors.js'

/**
 * Recall page tokens: opaque, bound to the workspace and the objective, and signed (HMAC-SHA-256), so a
 * forged or edited offset is INVALID_REQUEST; a genuine token used in another workspace, or with another
 * objective, is NOT_FOUND like any hidden target.
 */

const short = (value: string) => createHash('sha256').update(value).digest('base64url').slice(0, 22)

interface TokenBody {
  w: string
  o: string
  off: number
}

const sign = (key: string, body: string) => createHmac('sha256', key).update(body).digest('base64url')

/** What a page token is bound to: the objective, the seeds and the filters (another of any is another recall). */
export function objectiveBinding(
  objective: string,
  seedIds: readonly string[],
  filters: object = {},
): string {
  const bound: unknown[] = [objective, [...seedIds].sort()]
  // Unfiltered recalls keep the binding they always had, so tokens issued before filters existed still read.
  if (Object.keys(filters).length > 0) bound.push(filters)
  return short(JSON.stringify(bound))
}

export function issuePageToken(key: string, workspace: string, binding: string, offset: number): string {
  const body = Buffer.from(JSON.stringify({ w: short(workspace), o: binding, off: offset })).toString(
    'base64url',
  )
  return `${body}.${sign(key, body)}`
}

/** The offset a token resumes at. */
export function readPageToken(key: string, token: string, workspace: string, binding: string): number {
  const [body, mac, extra] = token.split('.')
  const bad = () => invalid('page_token is not a token this service issued')
  if (body === undefined || mac === undefined || extra !== undefined) throw bad()
  const expected = Buffer.from(sign(key, body))
  const given = Buffer.from(mac)
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw bad()
  let parsed: TokenBody
  try {
    parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as TokenBody
  } catch {
    throw bad()
  }
  if (!Number.isSafeInteger(parsed.off) || parsed.off < 0) throw bad()
  if (parsed.w !== short(workspace) || parsed.o !== binding)
    throw memoryError('NOT_FOUND', 'no such recall page in this workspace')
  return parsed.off
}
