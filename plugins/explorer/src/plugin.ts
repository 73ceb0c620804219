import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { HttpError } from '@service/plugin-errors'
import type { FastifyInstance, FastifyReply } from 'fastify'
import fp from 'fastify-plugin'
import { loadPageFiles, type PageFile } from './page-files.js'
import { PAGE_HEADERS } from './security-headers.js'

export interface ExplorerPluginOptions {
  /** The built page (index.html and its bundles). Default: this package's dist/web. */
  root?: string
}

/** The page's mount point; the shell is public, every data call it makes carries the bearer token. */
export const EXPLORER_PATH = '/explorer/'

const defaultRoot = join(dirname(fileURLToPath(import.meta.url)), 'web')

async function explorerPlugin(app: FastifyInstance, options: ExplorerPluginOptions): Promise<void> {
  const files = loadPageFiles(options.root ?? defaultRoot)
  // Hidden from the OpenAPI document: these are pages, not API operations.
  const hide = { schema: { hide: true } }

  const send = (reply: FastifyReply, file: PageFile, ifNoneMatch: string | undefined) => {
    reply.headers(PAGE_HEADERS).header('etag', file.etag)
    if (ifNoneMatch === file.etag) return reply.code(304).send()
    return reply.type(file.contentType).send(file.body)
  }
  const missing = (path: string) =>
    files.size === 0
      ? new HttpError('NOT_FOUND', 404, 'the explorer page is not built: run `npm run build`')
      : new HttpError('NOT_FOUND', 404, `no explorer file ${path}`)

  app.get('/', hide, async (_request, reply) => reply.redirect(EXPLORER_PATH, 302))
  app.get('/explorer', hide, async (_request, reply) => reply.redirect(EXPLORER_PATH, 301))
  app.get<{ Params: { '*': string } }>('/explorer/*', hide, async (request, reply) => {
    const path = request.params['*'] === '' ? 'index.html' : request.params['*']
    const file = files.get(path)
    if (file === undefined) throw missing(path)
    return send(reply, file, request.headers['if-none-match'])
  })
}

export default fp(explorerPlugin, {
  name: '@service/plugin-explorer',
  fastify: '5.x',
  dependencies: ['@service/plugin-errors'],
})
