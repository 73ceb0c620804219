import { parseSeedRequest, type SeedSearch } from '@service/core/seed'
import { ENGINE_PLUGIN } from '@service/plugin-engine'
import { errorResponses } from '@service/plugin-errors'
// The `operations` decorator's type (its metrics registry), when that plugin is registered.
import type {} from '@service/plugin-operations'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { startEmbeddings } from './embeddings.js'
import { seedMetrics } from './metrics.js'
import { SeedSearchBody, SeedSearchResponse } from './schemas.js'

export interface SeedPluginOptions {
  /** Embedding settings (`SERVICE_SEED_EMBEDDING_*`); default process.env. */
  env?: Record<string, string | undefined> | undefined
}

async function seedPlugin(app: FastifyInstance, options: SeedPluginOptions): Promise<void> {
  const seed = app.engine.seed
  startEmbeddings(seed.embeddings, options.env ?? process.env)
  app.decorate('seedSearch', seed)
  // With the operations plugin: the index's background work as gauges (a restart of a big store rebuilds it).
  if (app.hasDecorator('operations')) seedMetrics(app.operations.metrics.registry, () => seed.backlog())

  app.post<{ Body: SeedSearchBody }>(
    '/v1/seed/search',
    {
      schema: {
        tags: ['seed'],
        summary: 'Natural-language seed search over graph nodes (hybrid, full_text, semantic, vector)',
        body: SeedSearchBody,
        response: { 200: SeedSearchResponse, ...errorResponses(400, 401, 403, 413, 415, 422, 429, 503, 504) },
      },
    },
    async (request: FastifyRequest<{ Body: SeedSearchBody }>) => {
      // The engine runs the domain gates between these 400s and its own 422s, as for every door.
      const parsed = parseSeedRequest(request.body)
      const result = await seed.run(parsed, { signal: request.abortSignal })
      return { ok: true as const, result }
    },
  )
}

declare module 'fastify' {
  interface FastifyInstance {
    seedSearch: SeedSearch
  }
}

export default fp(seedPlugin, {
  name: '@service/plugin-seed',
  fastify: '5.x',
  dependencies: ['@service/plugin-errors', ENGINE_PLUGIN],
})
