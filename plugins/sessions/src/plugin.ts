import { Readable } from 'node:stream'
import { ENGINE_PLUGIN } from '@service/plugin-engine'
import { badRequest, errorResponses } from '@service/plugin-errors'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Static } from 'typebox'
import {
  GraphQuery,
  GraphResponse,
  HealthResponse,
  ListQuery,
  ListResponse,
  LogsQuery,
  LogsResponse,
  SessionParams,
  StartBody,
  StartResponse,
  StopResponse,
  TimelineResponse,
} from './schemas.js'

type Params = { Params: Static<typeof SessionParams> }
const errors = errorResponses(400, 401, 404, 429, 503, 504)

async function sessionsPlugin(app: FastifyInstance): Promise<void> {
  const engine = app.engine
  const sessions = engine.sessions

  app.post<{ Body: Static<typeof StartBody> }>(
    '/v1/sessions/start',
    {
      schema: {
        tags: ['sessions'],
        summary: 'Start a session (status idle)',
        body: StartBody,
        response: { 200: StartResponse, ...errors },
      },
    },
    async (request) => ({ ok: true as const, result: await sessions.start(request.body) }),
  )

  app.post<Params>(
    '/v1/sessions/:session_id/stop',
    {
      schema: {
        tags: ['sessions'],
        summary: 'Stop a session',
        params: SessionParams,
        response: { 200: StopResponse, ...errors },
      },
    },
    async (request) => ({ ok: true as const, result: await sessions.stop(request.params.session_id) }),
  )

  app.get<Params>(
    '/v1/sessions/:session_id/health',
    {
      schema: {
        tags: ['sessions'],
        summary: 'Session health',
        params: SessionParams,
        response: { 200: HealthResponse, ...errors },
      },
    },
    async (request) => ({ ok: true as const, result: sessions.health(request.params.session_id) }),
  )

  app.get<Params & { Querystring: Static<typeof LogsQuery> }>(
    '/v1/sessions/:session_id/logs',
    {
      schema: {
        tags: ['sessions'],
        summary: 'Session audit log (JSON envelope with audit parity, or NDJSON lines)',
        params: SessionParams,
        querystring: LogsQuery,
        response: { 200: LogsResponse, ...errors },
      },
    },
    async (request, reply) => {
      const format = (request.query.format ?? 'json').trim().toLowerCase()
      if (format !== 'json' && format !== 'ndjson')
        throw badRequest('INVALID_LOG_FORMAT', 'format must be json or ndjson')
      const page = sessions.logs(request.params.session_id, {
        limit: request.query.limit,
        fromMs: request.query.from_ms,
        toMs: request.query.to_ms,
      })
      if (format === 'ndjson') {
        reply.type('application/x-ndjson')
        // One JSON line per entry; sent as a stream so large pages start arriving at once.
        return reply.send(
          Readable.from(
            (function* () {
              for (const entry of page.entries) yield `${JSON.stringify(entry)}\n`
            })(),
          ),
        )
      }
      return {
        ok: true as const,
        result: {
          session_id: page.session_id,
          matched_entries: page.entries.length,
          total_matched_entries: page.total_matched_entries,
          stop_reason: page.stop_reason,
          audit_parity: page.audit_parity,
          entries: page.entries,
        },
      }
    },
  )

  app.get<{ Querystring: Static<typeof ListQuery> }>(
    '/v1/explorer/sessions',
    {
      schema: {
        tags: ['explorer'],
        summary: 'Sessions, ordered by id',
        querystring: ListQuery,
        response: { 200: ListResponse, ...errors },
      },
    },
    async (request) => ({
      ok: true as const,
      result: { sessions: sessions.list(request.query.include_stopped ?? false) },
    }),
  )

  app.get<Params>(
    '/v1/explorer/sessions/:session_id/timeline',
    {
      schema: {
        tags: ['explorer'],
        summary: 'The session timeline: a persisted acyclic lineage of snapshots and timeshots',
        params: SessionParams,
        response: { 200: TimelineResponse, ...errors },
      },
    },
    async (request) => ({ ok: true as const, result: engine.explorer.timeline(request.params.session_id) }),
  )

  app.get<Params & { Querystring: Static<typeof GraphQuery> }>(
    '/v1/explorer/sessions/:session_id/graph',
    {
      schema: {
        tags: ['explorer'],
        summary: 'A bounded, deterministic projection of the graph as of a boundary',
        params: SessionParams,
        querystring: GraphQuery,
        response: { 200: GraphResponse, ...errors },
      },
    },
    async (request) => ({
      ok: true as const,
      result: engine.explorer.graph(request.params.session_id, request.query),
    }),
  )
}

export default fp(sessionsPlugin, {
  name: '@service/plugin-sessions',
  fastify: '5.x',
  dependencies: ['@service/plugin-errors', '@service/plugin-operations', ENGINE_PLUGIN],
})
