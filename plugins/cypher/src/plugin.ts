import type { CypherMode } from '@service/core'
import { ENGINE_PLUGIN } from '@service/plugin-engine'
import { errorResponses } from '@service/plugin-errors'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { parseMode } from './mode.js'
import { CypherRequestBody, CypherResponse } from './schemas.js'

export interface CypherPluginOptions {
  /** The handler budget: queries are stopped by the clock at this point (504 REQUEST_TIMEOUT). */
  requestTimeoutMs: number
}

async function cypherPlugin(app: FastifyInstance, { requestTimeoutMs }: CypherPluginOptions): Promise<void> {
  const engine = app.engine
  const route = (path: string, summary: string, forced: CypherMode | null) =>
    app.post<{ Body: CypherRequestBody }>(
      path,
      {
        schema: {
          tags: ['cypher'],
          summary,
          body: CypherRequestBody,
          response: { 200: CypherResponse, ...errorResponses(400, 401, 404, 413, 415, 429, 503, 504) },
        },
      },
      async (request: FastifyRequest<{ Body: CypherRequestBody }>, reply: FastifyReply) => {
        const body = request.body
        const mode = forced ?? parseMode(body.mode)
        const result = await engine.cypher({
          query: body.query,
          params: body.params,
          mode,
          workspaceId: body.workspace_id,
          sessionId: body.session_id,
          budgetRef: body.budget_ref,
          forcedMode: forced === 'read' || forced === 'write' ? forced : null,
          correlationId: request.id,
          signal: request.abortSignal,
          deadline: Date.now() + requestTimeoutMs - Math.ceil(reply.elapsedTime),
        })
        return { ok: true as const, result }
      },
    )
  route('/v1/cypher/read', 'Cypher, forced read-only', 'read')
  route('/v1/cypher/write', 'Cypher, mutation allowed', 'write')
  route('/v1/cypher/execute', 'Cypher in the requested mode (read, write, validate, auto)', null)
}

export default fp(cypherPlugin, {
  name: '@service/plugin-cypher',
  fastify: '5.x',
  dependencies: ['@service/plugin-errors', '@service/plugin-operations', ENGINE_PLUGIN],
})
