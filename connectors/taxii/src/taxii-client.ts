import { type HttpDeps, type RetryPolicy, requestWithRetry } from './http.js'
import type { ConnectorSettings, TaxiiAuth } from './settings.js'
import type { StixObject } from './stix.js'

export const TAXII_MEDIA_TYPE = 'application/taxii+json;version=2.1'
/** A bound on one cycle; what is left is fetched by the next cycle, from the advanced cursor. */
export const MAX_PAGES = 1000

export type TaxiiSettings = Pick<
  ConnectorSettings,
  'taxiiRootUrl' | 'collectionId' | 'taxiiAuth' | 'pageLimit' | 'taxiiTimeoutMs'
>

export interface CollectionFetch {
  objects: StixObject[]
  pages: number
  /** The last `X-TAXII-Date-Added-Last` seen: the next cursor; undefined when no page carried one. */
  dateAddedLast: string | undefined
  /** The page bound cut the fetch short; the server holds more. */
  truncated: boolean
}

/** The server answered, but not with a usable envelope. */
export class TaxiiError extends Error {
  override readonly name = 'TaxiiError'
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message)
  }
}

export function taxiiHeaders(auth: TaxiiAuth): Record<string, string> {
  const headers: Record<string, string> = { accept: TAXII_MEDIA_TYPE }
  if (auth.kind === 'bearer') headers.authorization = `Bearer ${auth.token}`
  if (auth.kind === 'basic') {
    headers.authorization = `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`
  }
  return headers
}

export function objectsUrl(
  settings: TaxiiSettings,
  cursor: string | undefined,
  next: string | undefined,
): string {
  const url = new URL(
    `collections/${encodeURIComponent(settings.collectionId)}/objects/`,
    settings.taxiiRootUrl,
  )
  url.searchParams.set('limit', String(settings.pageLimit))
  if (cursor !== undefined) url.searchParams.set('added_after', cursor)
  if (next !== undefined) url.searchParams.set('next', next)
  return url.href
}

interface Envelope {
  more: boolean
  next: string | undefined
  objects: StixObject[]
}

function parseEnvelope(text: string, status: number): Envelope {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    throw new TaxiiError('TAXII objects response is not JSON', status)
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new TaxiiError('TAXII objects response is not an envelope object', status)
  }
  const { more, next, objects } = body as Record<string, unknown>
  // The 2.1 envelope omits `objects` when empty and `more` when false.
  const list = objects ?? []
  if (!Array.isArray(list) || !list.every((o) => typeof o === 'object' && o !== null && !Array.isArray(o))) {
    throw new TaxiiError('TAXII envelope `objects` is not an array of objects', status)
  }
  if (more !== undefined && typeof more !== 'boolean')
    throw new TaxiiError('TAXII envelope `more` is not boolean', status)
  if (next !== undefined && typeof next !== 'string')
    throw new TaxiiError('TAXII envelope `next` is not a string', status)
  return { more: more === true, next, objects: list as StixObject[] }
}

/**
 * Fetches everything added after `cursor`, page by page: `limit` on each request, `next` from the previous
 * envelope while `more` holds, at most MAX_PAGES pages.
 */
export async function fetchCollection(
  http: HttpDeps,
  policy: RetryPolicy,
  settings: TaxiiSettings,
  cursor: string | undefined,
): Promise<CollectionFetch> {
  const objects: StixObject[] = []
  let dateAddedLast: string | undefined
  let next: string | undefined
  for (let page = 1; ; page++) {
    const result = await requestWithRetry(http, policy, 'taxii_objects', objectsUrl(settings, cursor, next), {
      method: 'GET',
      headers: taxiiHeaders(settings.taxiiAuth),
      timeoutMs: settings.taxiiTimeoutMs,
    })
    if (result.status !== 200) {
      throw new TaxiiError(`TAXII objects request answered HTTP ${result.status}`, result.status)
    }
    const envelope = parseEnvelope(result.text, result.status)
    objects.push(...envelope.objects)
    dateAddedLast = result.headers.get('x-taxii-date-added-last') ?? dateAddedLast
    http.log('info', 'page_fetched', {
      collection: settings.collectionId,
      page,
      objects: envelope.objects.length,
      more: envelope.more,
    })
    if (!envelope.more) return { objects, pages: page, dateAddedLast, truncated: false }
    if (envelope.next === undefined) {
      // `more` without `next` gives no way to continue; the cursor picks up from here next cycle.
      http.log('warn', 'pagination_stopped', {
        collection: settings.collectionId,
        page,
        reason: 'more without next',
      })
      return { objects, pages: page, dateAddedLast, truncated: true }
    }
    if (page >= MAX_PAGES) {
      http.log('warn', 'pagination_stopped', {
        collection: settings.collectionId,
        page,
        reason: 'page bound',
      })
      return { objects, pages: page, dateAddedLast, truncated: true }
    }
    next = envelope.next
  }
}
