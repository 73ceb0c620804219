import type { Engine } from '@service/core'
import { ENGINE_PLUGIN } from '@service/plugin-engine'
import { errorResponses } from '@service/plugin-errors'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { Counter, Gauge, type Registry } from 'prom-client'
import {
  AuthorityBody,
  AuthorityResponse,
  Corpus,
  FilesBody,
  FilesDeleted,
  FilesEnqueued,
  JournalQuery,
  JournalResponse,
  LastParityResponse,
  LoadResponse,
  ParityBody,
  ParityResponse,
  ReconstructionResponse,
  ReturnResponse,
  SnapshotBody,
  SnapshotResponse,
  StatusResponse,
  SuspendBody,
  WriteBody,
  WriteResponse,
} from './schemas.js'

export interface RefPluginOptions {
  /** Body limit of `/v1/ref/*` (SERVICE_HTTP_IMPORT_MAX_BODY_BYTES); 413 above it. */
  importMaxBodyBytes: number
  /** Where the write counters are exposed (the projection gauges come through the operations sources). */
  metricsRegistry?: Registry
}

function registerMetrics(engine: Engine, registers: Registry[]): void {
  const counters = () => engine.ref.counters()
  const operations = new Counter({
    name: 'service_ref_write_operations_total',
    help: 'Reference write operations by outcome (applied, failed), since the process started.',
    labelNames: ['outcome'],
    registers,
    collect() {
      const c = counters()
      this.reset()
      this.inc({ outcome: 'applied' }, c.applied_operations)
      this.inc({ outcome: 'failed' }, c.failed_operations)
    },
  })
  operations.inc({ outcome: 'applied' }, 0)
  new Counter({
    name: 'service_ref_write_idempotent_replays_total',
    help: 'Reference writes answered from their receipt (same key, same request).',
    registers,
    collect() {
      this.reset()
      this.inc(counters().idempotent_replays)
    },
  })
  new Gauge({
    name: 'service_ref_write_reconciliation_pending',
    help: 'Committed reference writes not yet reconciled with the reference.',
    registers,
    collect() {
      this.set(counters().pending_reconciliation)
    },
  })
  new Gauge({
    name: 'service_ref_write_reconciliation_quarantined',
    help: 'Committed reference writes quarantined for divergence.',
    registers,
    collect() {
      this.set(counters().quarantined_reconciliation)
    },
  })
}

/** HTTP onto `engine.ref`: every rule lives in the core; these routes map bodies, statuses and envelopes. */
async function refPlugin(app: FastifyInstance, options: RefPluginOptions): Promise<void> {
  const { importMaxBodyBytes } = options
  const engine = app.engine
  if (options.metricsRegistry !== undefined) registerMetrics(engine, [options.metricsRegistry])
  const tags = ['ref']

  app.post<{ Body: WriteBody }>(
    '/v1/ref/writes',
    {
      bodyLimit: importMaxBodyBytes,
      schema: {
        tags,
        summary: 'Commit an idempotent reference write and enqueue its ordered projection',
        body: WriteBody,
        response: { 200: WriteResponse, ...errorResponses(400, 401, 413, 415, 429, 503, 504) },
      },
    },
    async (request) => ({
      ok: true as const,
      ...(await engine.ref.write(request.body, { correlationId: request.id })),
    }),
  )

  app.get(
    '/v1/ref/writes/status',
    {
      schema: {
        tags,
        summary: 'Counters, reconciliations, ordered projection entries, audits and write authority',
        response: { 200: StatusResponse, ...errorResponses(401, 429) },
      },
    },
    async () => engine.ref.status(),
  )

  app.post<{ Body: FilesBody }>(
    '/v1/ref/files',
    {
      bodyLimit: importMaxBodyBytes,
      schema: {
        tags,
        summary: 'Enqueue a file-content job or delete file projections (tagged command)',
        body: FilesBody,
        response: {
          200: FilesDeleted,
          202: FilesEnqueued,
          ...errorResponses(400, 401, 413, 415, 429, 503),
        },
      },
    },
    async (request, reply) => {
      const result = await engine.ref.files(request.body)
      if (result.result === 'deleted') return { ok: true as const, result: result.result }
      reply.code(202)
      return { ok: true as const, ...result }
    },
  )

  app.post(
    '/v1/admin/ref/projection/drain',
    {
      schema: {
        tags,
        summary: 'Retry the ordered projection outbox (oldest first, stops at the first failure)',
        response: { 200: StatusResponse, ...errorResponses(401, 403, 503) },
      },
    },
    async () => engine.ref.drain(),
  )

  app.post(
    '/v1/admin/ref/reconstruction',
    {
      schema: {
        tags,
        summary: 'Deterministic canonical records (sorted by id) and the outbox high-water sequence',
        response: { 200: ReconstructionResponse, ...errorResponses(401, 403, 503) },
      },
    },
    async () => ({ ok: true as const, result: await engine.ref.reconstruction() }),
  )

  app.post<{ Body: Corpus }>(
    '/v1/admin/ref/reconstruction/load',
    {
      bodyLimit: importMaxBodyBytes,
      schema: {
        tags,
        summary: 'Rebuild this clean store as the reference from a primary reconstruction corpus',
        body: Corpus,
        response: { 200: LoadResponse, ...errorResponses(400, 401, 403, 409, 413, 503) },
      },
    },
    async (request) => ({ ok: true as const, result: await engine.ref.rollback.load(request.body) }),
  )

  app.post<{ Body: ParityBody }>(
    '/v1/admin/ref/parity',
    {
      bodyLimit: importMaxBodyBytes,
      schema: {
        tags,
        summary: 'Compute and record parity with the reference over stated queries, subjects and records',
        body: ParityBody,
        response: { 200: ParityResponse, ...errorResponses(400, 401, 403, 409, 503) },
      },
    },
    async (request) => ({ ok: true as const, result: await engine.ref.rollback.parity(request.body) }),
  )

  app.get(
    '/v1/admin/ref/parity',
    {
      schema: {
        tags,
        summary: 'The last recorded parity report (null before the first)',
        response: { 200: LastParityResponse, ...errorResponses(401, 403) },
      },
    },
    async () => ({ ok: true as const, result: engine.ref.rollback.lastParity() }),
  )

  app.post(
    '/v1/admin/ref/return',
    {
      schema: {
        tags,
        summary: "Replay the reference's writes above the handover mark, in order (the return path)",
        response: { 200: ReturnResponse, ...errorResponses(401, 403, 409, 503) },
      },
    },
    async () => ({ ok: true as const, result: await engine.ref.rollback.returnWrites() }),
  )

  app.post<{ Body: SnapshotBody }>(
    '/v1/ref/parity/snapshot',
    {
      bodyLimit: importMaxBodyBytes,
      schema: {
        tags,
        summary: "This store's side of a parity comparison (a primary asks its reference for it)",
        body: SnapshotBody,
        response: { 200: SnapshotResponse, ...errorResponses(400, 401, 413, 429) },
      },
    },
    async (request) => ({ ok: true as const, result: await engine.ref.rollback.snapshot(request.body) }),
  )

  app.get<{ Querystring: JournalQuery }>(
    '/v1/ref/writes/journal',
    {
      schema: {
        tags,
        summary: 'Applied writes above a sequence, oldest first (what a primary pulls on its return path)',
        querystring: JournalQuery,
        response: { 200: JournalResponse, ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => ({
      ok: true as const,
      result: engine.ref.rollback.journal(request.query.after, request.query.limit ?? 256),
    }),
  )

  app.post<{ Body: SuspendBody }>(
    '/v1/admin/ref/authority/suspend',
    {
      schema: {
        tags,
        summary: 'Suspend writes for a declared rollback trigger',
        body: SuspendBody,
        response: { 200: AuthorityResponse, ...errorResponses(400, 401, 403, 503) },
      },
    },
    async (request) => ({ ok: true as const, ...(await engine.ref.suspend(request.body.trigger)) }),
  )

  app.post<{ Body: AuthorityBody }>(
    '/v1/admin/ref/authority',
    {
      schema: {
        tags,
        summary: 'Assign write authority after the health, replay and parity gates',
        body: AuthorityBody,
        response: { 200: AuthorityResponse, ...errorResponses(400, 401, 403, 503) },
      },
    },
    async (request) => ({ ok: true as const, ...(await engine.ref.assignAuthority(request.body)) }),
  )
}

export default fp(refPlugin, {
  name: '@service/plugin-ref',
  fastify: '5.x',
  dependencies: ['@service/plugin-errors', ENGINE_PLUGIN],
})
