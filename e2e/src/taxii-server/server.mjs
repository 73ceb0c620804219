#!/usr/bin/env node
// A TAXII 2.1 server for the connector tests (read side of the spec: discovery, API roots, collections,
// objects, manifest, status), on node:http with no dependencies. Configured by environment:
//   TAXII_HOST (127.0.0.1), TAXII_PORT (0 = any free port), TAXII_MEDALLION_FILE, TAXII_ATTACK_FILE,
//   TAXII_PAGE_MAX (1000), TAXII_AUTH_TOKEN or TAXII_AUTH_USERNAME + TAXII_AUTH_PASSWORD,
//   TAXII_FAIL_NEXT (fail that many TAXII requests), TAXII_FAIL_STATUS (503), TAXII_RETRY_AFTER (seconds),
//   TAXII_DELAY_MS (delay before each TAXII answer).
// Test control, outside auth: POST /__control/faults {fail_next?, fail_status?, retry_after?, delay_ms?};
// GET /__control/requests (what clients sent); DELETE /__control/requests.
// Prints {"event":"listening","port":N} on stdout once it accepts connections.
import { timingSafeEqual } from 'node:crypto'
import { createServer } from 'node:http'
import { QueryError, queryEntries } from './query.mjs'
import { collectionResource, loadStore } from './store.mjs'

const TAXII_MEDIA_TYPE = 'application/taxii+json;version=2.1'

/** @typedef {import('node:http').IncomingMessage} Request */
/** @typedef {import('node:http').ServerResponse} Response */

const env = process.env
const store = loadStore({ medallionFile: env.TAXII_MEDALLION_FILE, attackFile: env.TAXII_ATTACK_FILE })
const pageMax = Number(env.TAXII_PAGE_MAX ?? 1000)
const faults = {
  failNext: Number(env.TAXII_FAIL_NEXT ?? 0),
  failStatus: Number(env.TAXII_FAIL_STATUS ?? 503),
  retryAfter: env.TAXII_RETRY_AFTER,
  delayMs: Number(env.TAXII_DELAY_MS ?? 0),
}
/** @type {{ method: string, path: string, query: Record<string, string>, accept: string | null, authorized: boolean, status: number }[]} */
const requests = []

/**
 * @param {Response} res
 * @param {number} status
 * @param {unknown} body
 * @param {Record<string, string>} [headers]
 */
function send(res, status, body, headers = {}) {
  res.writeHead(status, { 'content-type': TAXII_MEDIA_TYPE, ...headers })
  res.end(JSON.stringify(body))
}

/**
 * The TAXII error message resource.
 * @param {Response} res
 * @param {number} status
 * @param {string} title
 * @param {string} [description]
 * @param {Record<string, string>} [headers]
 */
function fail(res, status, title, description, headers) {
  send(res, status, { title, ...(description ? { description } : {}), http_status: String(status) }, headers)
}

/** @param {string | undefined} header the Accept header */
function acceptsTaxii21(header) {
  if (header === undefined) return false
  return header.split(',').some((range) => {
    const [type, ...params] = range.split(';').map((part) => part.trim().toLowerCase())
    if (type !== 'application/taxii+json') return false
    const version = params.find((p) => p.startsWith('version='))
    return version === undefined || version === 'version=2.1'
  })
}

/** @param {string} a @param {string} b */
const same = (a, b) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b))

/** @param {string | undefined} header the Authorization header */
function authorized(header) {
  if (env.TAXII_AUTH_TOKEN) return same(header ?? '', `Bearer ${env.TAXII_AUTH_TOKEN}`)
  if (env.TAXII_AUTH_USERNAME) {
    const basic = Buffer.from(`${env.TAXII_AUTH_USERNAME}:${env.TAXII_AUTH_PASSWORD ?? ''}`).toString(
      'base64',
    )
    return same(header ?? '', `Basic ${basic}`)
  }
  return true
}

/**
 * @param {Request} req
 * @param {Response} res
 * @param {URL} url
 */
async function control(req, res, url) {
  if (url.pathname === '/__control/requests') {
    if (req.method === 'DELETE') requests.length = 0
    return send(res, 200, { requests }, { 'content-type': 'application/json' })
  }
  if (url.pathname === '/__control/faults' && req.method === 'POST') {
    let text = ''
    for await (const chunk of req) text += chunk
    const body = JSON.parse(text || '{}')
    if (body.fail_next !== undefined) faults.failNext = Number(body.fail_next)
    if (body.fail_status !== undefined) faults.failStatus = Number(body.fail_status)
    if (body.retry_after !== undefined) faults.retryAfter = String(body.retry_after)
    if (body.delay_ms !== undefined) faults.delayMs = Number(body.delay_ms)
    return send(res, 200, faults, { 'content-type': 'application/json' })
  }
  return fail(res, 404, 'Unknown control route')
}

/**
 * @param {Response} res
 * @param {import('./store.mjs').Collection} collection
 * @param {URLSearchParams} params
 * @param {'objects' | 'manifest'} kind
 * @param {string} [objectId]
 */
function envelope(res, collection, params, kind, objectId) {
  if (!collection.can_read) return fail(res, 403, 'Collection is not readable')
  let result
  try {
    result = queryEntries(collection.entries, params, { pageMax, ...(objectId ? { objectId } : {}) })
  } catch (error) {
    if (error instanceof QueryError) return fail(res, 400, 'Bad query', error.message)
    throw error
  }
  const { page, more, next } = result
  if (objectId !== undefined && page.length === 0 && !more) return fail(res, 404, 'Object not found')
  /** @type {Record<string, string>} */
  const headers = {}
  const first = page[0]
  const last = page.at(-1)
  if (first && last) {
    headers['X-TAXII-Date-Added-First'] = first.dateAddedText
    headers['X-TAXII-Date-Added-Last'] = last.dateAddedText
  }
  const items =
    kind === 'objects'
      ? page.map((e) => e.object)
      : page.map((e) => ({
          id: e.id,
          date_added: e.dateAddedText,
          version: e.version,
          media_type: e.mediaType,
        }))
  return send(
    res,
    200,
    { more, ...(next ? { next } : {}), ...(items.length > 0 ? { objects: items } : {}) },
    headers,
  )
}

/**
 * @param {Request} req
 * @param {Response} res
 * @param {URL} url
 */
function taxii(req, res, url) {
  if (req.method !== 'GET') return fail(res, 405, 'Only the read side of TAXII is served')
  const parts = url.pathname
    .split('/')
    .filter((p) => p !== '')
    .map(decodeURIComponent)
  if (parts.length === 1 && parts[0] === 'taxii2') {
    const origin = `http://${req.headers.host}`
    const names = [...store.roots.keys()]
    const defaultRoot = store.roots.has('trustgroup1') ? 'trustgroup1' : names[0]
    return send(res, 200, {
      ...store.discovery,
      ...(defaultRoot ? { default: `${origin}/${defaultRoot}/` } : {}),
      api_roots: names.map((name) => `${origin}/${name}/`),
    })
  }
  const [rootName, section, id, sub, objectId, extra] = parts
  const root = rootName === undefined ? undefined : store.roots.get(rootName)
  if (root === undefined) return fail(res, 404, 'Unknown API root')
  if (section === undefined) return send(res, 200, root.information)
  if (section === 'status' && id !== undefined && sub === undefined) {
    const status = root.status.find((s) => s.id === id)
    return status ? send(res, 200, status) : fail(res, 404, 'Unknown status')
  }
  if (section !== 'collections') return fail(res, 404, 'Unknown resource')
  if (id === undefined) return send(res, 200, { collections: root.collections.map(collectionResource) })
  const collection = root.collections.find((c) => c.id === id)
  if (collection === undefined) return fail(res, 404, 'Unknown collection')
  if (sub === undefined) return send(res, 200, collectionResource(collection))
  if (sub === 'objects' && extra === undefined)
    return envelope(res, collection, url.searchParams, 'objects', objectId)
  if (sub === 'manifest' && objectId === undefined)
    return envelope(res, collection, url.searchParams, 'manifest')
  return fail(res, 404, 'Unknown resource')
}

const server = createServer(async (req, res) => {
  try {
    const url = new URL(req.url ?? '/', 'http://taxii.invalid')
    if (url.pathname.startsWith('/__control/')) return await control(req, res, url)
    const entry = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      accept: req.headers.accept ?? null,
      authorized: authorized(req.headers.authorization),
      status: 0,
    }
    requests.push(entry)
    res.on('finish', () => {
      entry.status = res.statusCode
    })
    if (faults.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, faults.delayMs))
    if (faults.failNext > 0) {
      faults.failNext--
      const headers = faults.retryAfter === undefined ? {} : { 'retry-after': faults.retryAfter }
      return fail(res, faults.failStatus, 'Injected failure', undefined, headers)
    }
    if (!entry.authorized)
      return fail(res, 401, 'Authentication required', undefined, { 'www-authenticate': 'Basic' })
    if (!acceptsTaxii21(req.headers.accept)) {
      return fail(res, 406, 'Not acceptable', `Accept must be ${TAXII_MEDIA_TYPE}`)
    }
    return taxii(req, res, url)
  } catch (error) {
    if (!res.headersSent) fail(res, 500, 'Internal error', String(error))
    else res.destroy()
  }
})

server.listen(Number(env.TAXII_PORT ?? 0), env.TAXII_HOST ?? '127.0.0.1', () => {
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  process.stdout.write(`${JSON.stringify({ event: 'listening', port })}\n`)
})

for (const signal of /** @type {const} */ (['SIGTERM', 'SIGINT'])) {
  process.on(signal, () => {
    server.close(() => process.exit(0))
    server.closeAllConnections()
  })
}
