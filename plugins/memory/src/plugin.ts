import {
  EngineError,
  isEngineError,
  type MemoryContext,
  type MemoryPermission,
  type MemoryResponse,
  memoryResponseBody,
} from '@service/core'
import { ENGINE_PLUGIN } from '@service/plugin-engine'
import { errorResponses, sendError } from '@service/plugin-errors'
import type { FastifyError, FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { MemoryOperationRequest, MemoryOperationResponse } from './schemas.js'

/** The trusted part of every memory context, from deployment settings (SERVICE_MEMORY_*). */
export interface TrustedMemorySettings {
  workspaceId: string
  actorId: string
  agentId: string | null
  sessionId: string
  permissions: Iterable<MemoryPermission>
}

export interface MemoryPluginOptions {
  context: TrustedMemorySettings
  /** Told of every operation's outcome (`ok` or the error code), e.g. for metrics. */
  onOperation?: (operation: string, outcome: string, response: MemoryResponse | null) => void
}

const UNPARSEABLE = new Set(['FST_ERR_CTP_INVALID_JSON_BODY', 'FST_ERR_CTP_EMPTY_JSON_BODY'])

async function memoryPlugin(
  app: FastifyInstance,
  { context, onOperation }: MemoryPluginOptions,
): Promise<void> {
  const engine = app.engine
  const permissions = [...context.permissions]
  app.post(
    '/v1/memory/operations',
    {
      schema: {
        tags: ['memory'],
        summary: 'Execute one memory operation (contract v1)',
        body: MemoryOperationRequest,
        response: {
          200: MemoryOperationResponse,
          ...errorResponses(400, 401, 403, 404, 408, 409, 413, 415, 422, 429, 503, 504),
        },
      },
      // The engine validates the body (see schemas.ts); the schema documents it.
      validatorCompiler: () => () => true,
      // The contract answers a body that is not JSON with INVALID_REQUEST, like any other malformed request.
      errorHandler: (error: FastifyError, request, reply) =>
        sendError(
          request,
          reply,
          UNPARSEABLE.has(error.code)
            ? new EngineError('INVALID_REQUEST', 'the request body is not valid JSON')
            : error,
        ),
    },
    async (request, reply) => {
      const trusted: MemoryContext = {
        workspace_id: context.workspaceId,
        actor_id: context.actorId,
        agent_id: context.agentId,
        session_id: context.sessionId,
        permissions,
        correlation_id: request.id,
      }
      const body = request.body as { operation?: unknown }
      const operation = typeof body?.operation === 'string' ? body.operation : 'unknown'
      try {
        const response = await engine.memory.execute(request.body, trusted, { signal: request.abortSignal })
        onOperation?.(operation, 'ok', response)
        // Valid by construction and already half serialised (a recall's working set): sent as its JSON text,
        // byte for byte what the schema's serializer would write.
        return reply.type('application/json; charset=utf-8').send(memoryResponseBody(response))
      } catch (error) {
        onOperation?.(operation, isEngineError(error) ? error.code : 'INTERNAL', null)
        throw error
      }
    },
  )
}

export default fp(memoryPlugin, {
  name: '@service/plugin-memory',
  fastify: '5.x',
  dependencies: ['@service/plugin-errors', ENGINE_PLUGIN],
})
