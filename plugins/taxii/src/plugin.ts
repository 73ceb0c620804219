/**
 * TAXII 2.1 (OASIS, 2021) under /taxii2/: discovery, one API root, collections, objects, versions,
 * manifest, additions and their status. Only maps the protocol onto core's TaxiiApi: the rules
 * (publication, page bounds, versions, the import) live there.
 */
import type { ImportResult } from '@service/core/stix'
import { formatMicros } from '@service/core/stix'
import { type Page, type RawQuery, TaxiiApi, type WorkspaceSelection } from '@service/core/taxii'
import { ENGINE_PLUGIN } from '@service/plugin-engine'
import { HttpError } from '@service/plugin-errors'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { notAcceptable, sendTaxiiError, unsupportedMediaType } from './errors.js'
import { acceptsTaxii, isTaxiiContentType, TAXII_MEDIA_TYPE } from './media-types.js'
import {
  ApiRoot,
  Collection,
  CollectionParams,
  Collections,
  Discovery,
  Envelope,
  FilterQuery,
  Manifest,
  ObjectParams,
  Status,
  StatusParams,
  taxiiErrors,
  Versions,
} from './schemas.js'

export interface TaxiiPluginOptions {
  /** SERVICE_TAXII_PUBLISHED_COLLECTIONS: workspaces readable as collections (`*`: all holding STIX objects). */
  published: WorkspaceSelection
  /** SERVICE_TAXII_WRITABLE_COLLECTIONS: workspaces that accept additions. */
  writable: WorkspaceSelection
  pageDefault: number
  pageMax: number
  /** Body limit of additions (SERVICE_HTTP_IMPORT_MAX_BODY_BYTES); 413 above it. */
  importMaxBodyBytes: number
  onImport?: (result: ImportResult) => void
}

export const API_ROOT = '/taxii2/root/'
const PREFIX = '/taxii2'

/** Known TAXII paths and their methods, to tell 405 from 404. */
const PATHS: [RegExp, string][] = [
  [/^\/taxii2\/$/, 'GET, HEAD'],
  [/^\/taxii2\/root\/$/, 'GET, HEAD'],
  [/^\/taxii2\/root\/status\/[^/]+\/$/, 'GET, HEAD'],
  [/^\/taxii2\/root\/collections\/$/, 'GET, HEAD'],
  [/^\/taxii2\/root\/collections\/[^/]+\/$/, 'GET, HEAD'],
  [/^\/taxii2\/root\/collections\/[^/]+\/objects\/$/, 'GET, HEAD, POST'],
  [/^\/taxii2\/root\/collections\/[^/]+\/objects\/[^/]+\/$/, 'GET, HEAD'],
  [/^\/taxii2\/root\/collections\/[^/]+\/objects\/[^/]+\/versions\/$/, 'GET, HEAD'],
  [/^\/taxii2\/root\/collections\/[^/]+\/manifest\/$/, 'GET, HEAD'],
]

/** A Buffer, so Fastify sends the media type exactly (a JSON string would get it rewritten with a charset). */
const send = (reply: FastifyReply, status: number, body: string) =>
  reply.code(status).header('content-type', TAXII_MEDIA_TYPE).send(Buffer.from(body, 'utf8'))

/**
 * A page as TAXII sends it: `more`, `next` when there is more, and the items under `key` (omitted when
 * none, as the specification shows), with the X-TAXII-Date-Added-First/Last headers of the page.
 */
function sendPage(reply: FastifyReply, page: Page, key: string, items: (page: Page) => string): FastifyReply {
  const first = page.items[0]
  const last = page.items.at(-1)
  if (first !== undefined && last !== undefined) {
    reply.header('x-taxii-date-added-first', formatMicros(first.row.added))
    reply.header('x-taxii-date-added-last', formatMicros(last.row.added))
  }
  const next = page.next === null ? '' : `,"next":${JSON.stringify(page.next)}`
  const list = page.items.length === 0 ? '' : `,"${key}":${items(page)}`
  return send(reply, 200, `{"more":${page.more}${next}${list}}`)
}

/** Objects are the stored canonical texts, joined as they are: no parse and re-serialization per page. */
const objectTexts = (page: Page) => `[${page.items.map((i) => i.text).join(',')}]`

const versionText = (row: Page['items'][number]['row']) => row.version || formatMicros(row.added)

async function taxiiPlugin(app: FastifyInstance, options: TaxiiPluginOptions): Promise<void> {
  const api = new TaxiiApi(app.engine, {
    published: options.published,
    writable: options.writable,
    limits: { defaultSize: options.pageDefault, maxSize: options.pageMax },
    ...(options.onImport === undefined ? {} : { onImport: options.onImport }),
  })
  app.addHook('onClose', async () => api.settled())

  await app.register(
    async (taxii) => {
      taxii.setErrorHandler(sendTaxiiError)
      taxii.setNotFoundHandler((request, reply) => {
        const path = request.url.split('?')[0] ?? request.url
        const allow = PATHS.find(([pattern]) => pattern.test(path))?.[1]
        const error =
          allow === undefined
            ? new HttpError('NOT_FOUND', 404, `no TAXII resource ${path}`)
            : Object.assign(
                new HttpError('METHOD_NOT_ALLOWED', 405, `${request.method} is not allowed here`),
                {
                  allow,
                },
              )
        return sendTaxiiError(error, request, reply)
      })
      const parseJson = taxii.getDefaultJsonParser('error', 'error')
      taxii.addContentTypeParser('application/taxii+json', { parseAs: 'string' }, parseJson)
      // After auth (route-level onRequest) and body parsing: 401 first, then 415, then 406.
      taxii.addHook('preValidation', async (request) => {
        if (request.method === 'POST' && !isTaxiiContentType(request.headers['content-type']))
          throw unsupportedMediaType()
        if (!acceptsTaxii(request.headers.accept)) throw notAcceptable()
      })

      const origin = (request: FastifyRequest) => `${request.protocol}://${request.host}`
      const tags = ['taxii']

      taxii.get(
        '/',
        {
          // Only /taxii2/: TAXII URLs end in a slash, and one route is one OpenAPI path.
          prefixTrailingSlash: 'slash',
          schema: {
            tags,
            summary: 'TAXII 2.1 discovery',
            response: { 200: Discovery, ...taxiiErrors(401, 406, 429) },
          },
        },
        async (request, reply) => {
          const root = `${origin(request)}${API_ROOT}`
          return send(
            reply,
            200,
            JSON.stringify({
              title: 'Graph Memory Service TAXII 2.1',
              description: 'Workspaces holding STIX objects, published as collections',
              default: root,
              api_roots: [root],
            }),
          )
        },
      )

      taxii.get(
        '/root/',
        {
          schema: {
            tags,
            summary: 'TAXII 2.1 API root',
            response: { 200: ApiRoot, ...taxiiErrors(401, 406, 429) },
          },
        },
        async (_request, reply) =>
          send(
            reply,
            200,
            JSON.stringify({
              title: 'default',
              description: 'The one API root of this service',
              versions: [TAXII_MEDIA_TYPE],
              max_content_length: options.importMaxBodyBytes,
            }),
          ),
      )

      taxii.get<{ Params: { statusId: string } }>(
        '/root/status/:statusId/',
        {
          schema: {
            tags,
            summary: 'Status of an object addition',
            params: StatusParams,
            response: { 200: Status, ...taxiiErrors(401, 404, 406, 429) },
          },
        },
        async (request, reply) => send(reply, 200, JSON.stringify(api.status(request.params.statusId))),
      )

      taxii.get(
        '/root/collections/',
        {
          schema: {
            tags,
            summary: 'Collections: one per published workspace',
            response: { 200: Collections, ...taxiiErrors(401, 406, 429) },
          },
        },
        async (_request, reply) => {
          const collections = await api.collections()
          return send(reply, 200, JSON.stringify(collections.length === 0 ? {} : { collections }))
        },
      )

      taxii.get<{ Params: { collectionId: string } }>(
        '/root/collections/:collectionId/',
        {
          schema: {
            tags,
            summary: 'One collection',
            params: CollectionParams,
            response: { 200: Collection, ...taxiiErrors(401, 404, 406, 429) },
          },
        },
        async (request, reply) =>
          send(reply, 200, JSON.stringify(api.collection(request.params.collectionId))),
      )

      taxii.post<{ Params: { collectionId: string }; Body: unknown }>(
        '/root/collections/:collectionId/objects/',
        {
          bodyLimit: options.importMaxBodyBytes,
          schema: {
            tags,
            summary: 'Add objects (an envelope) to a writable collection',
            params: CollectionParams,
            consumes: [TAXII_MEDIA_TYPE],
            body: Envelope,
            response: { 202: Status, ...taxiiErrors(400, 401, 403, 404, 406, 413, 415, 429) },
          },
        },
        async (request, reply) =>
          send(reply, 202, JSON.stringify(api.add(request.params.collectionId, request.body))),
      )

      /** A paged, filtered read: the TAXII filters as the query, a page as the answer. */
      const pageRoute = <P extends Record<string, string>>(
        url: string,
        summary: string,
        params: typeof CollectionParams | typeof ObjectParams,
        response: typeof Envelope | typeof Manifest | typeof Versions,
        answer: (params: P, query: RawQuery, reply: FastifyReply) => Promise<FastifyReply>,
      ) =>
        taxii.get<{ Params: P; Querystring: RawQuery }>(
          url,
          {
            schema: {
              tags,
              summary,
              params,
              querystring: FilterQuery,
              response: { 200: response, ...taxiiErrors(400, 401, 403, 404, 406, 429) },
            },
          },
          async (request, reply) => answer(request.params as P, request.query, reply),
        )

      pageRoute<{ collectionId: string }>(
        '/root/collections/:collectionId/objects/',
        'Objects of a collection, filtered and paged',
        CollectionParams,
        Envelope,
        async (p, query, reply) =>
          sendPage(reply, await api.objects(p.collectionId, query), 'objects', objectTexts),
      )

      pageRoute<{ collectionId: string; objectId: string }>(
        '/root/collections/:collectionId/objects/:objectId/',
        'One object (its versions matching the filters)',
        ObjectParams,
        Envelope,
        async (p, query, reply) =>
          sendPage(reply, await api.object(p.collectionId, p.objectId, query), 'objects', objectTexts),
      )

      pageRoute<{ collectionId: string; objectId: string }>(
        '/root/collections/:collectionId/objects/:objectId/versions/',
        'The versions of one object',
        ObjectParams,
        Versions,
        async (p, query, reply) =>
          sendPage(reply, await api.versions(p.collectionId, p.objectId, query), 'versions', (page) =>
            JSON.stringify(page.items.map((i) => versionText(i.row))),
          ),
      )

      pageRoute<{ collectionId: string }>(
        '/root/collections/:collectionId/manifest/',
        'Manifest: one entry per object version',
        CollectionParams,
        Manifest,
        async (p, query, reply) =>
          sendPage(reply, await api.manifest(p.collectionId, query), 'objects', (page) =>
            JSON.stringify(
              page.items.map((i) => ({
                id: i.row.id,
                date_added: formatMicros(i.row.added),
                version: versionText(i.row),
                media_type: `application/stix+json;version=${i.row.spec}`,
              })),
            ),
          ),
      )
    },
    { prefix: PREFIX },
  )
}

export default fp(taxiiPlugin, {
  name: '@service/plugin-taxii',
  fastify: '5.x',
  dependencies: ['@service/plugin-errors', ENGINE_PLUGIN],
})
