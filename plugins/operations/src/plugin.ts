import {
  READABLE_RECORD_FORMATS,
  RECORD_FORMAT,
  SERVICE_NAME,
  SERVICE_VERSION,
  STORAGE_VERSION,
} from '@service/core'
import { ENGINE_PLUGIN } from '@service/plugin-engine'
import { HttpErrors, OPERATIONAL_ROUTES } from '@service/plugin-errors'
import type { FastifyInstance, onRequestHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { backupRoute, UNBOUNDED_STREAM } from './backup-route.js'
import type { Lifecycle } from './lifecycle.js'
import { createMetrics, type ServiceMetrics } from './metrics.js'
import { readYourWrites } from './read-your-writes.js'
import { HealthRecord, LivenessRecord, ReadinessRecord, VersionRecord } from './schemas.js'
import { defaultHealthSources, type HealthSources } from './sources.js'

export interface OperationsOptions {
  lifecycle: Lifecycle
  /** Handler time budget; a request still unanswered then gets 504 REQUEST_TIMEOUT. */
  requestTimeoutMs: number
  /** How long a read passing x-service-min-seq waits for that sequence (default 5000 ms). */
  readYourWritesTimeoutMs?: number
  build?: { commit?: string | undefined; target?: string | undefined }
}

export interface Operations {
  lifecycle: Lifecycle
  metrics: ServiceMetrics
  /** Feature areas replace the default sources with their live figures. */
  sources: HealthSources
}

declare module 'fastify' {
  interface FastifyInstance {
    operations: Operations
  }
}

async function operationsPlugin(app: FastifyInstance, options: OperationsOptions): Promise<void> {
  const { lifecycle } = options
  const engine = app.engine
  const operations: Operations = {
    lifecycle,
    sources: defaultHealthSources(),
    metrics: undefined as unknown as ServiceMetrics,
  }
  operations.metrics = createMetrics(engine, lifecycle, () => operations.sources)
  app.decorate('operations', operations)
  app.decorateRequest('abortSignal', undefined as unknown as AbortSignal)

  const timers = new WeakMap<
    object,
    { timer: NodeJS.Timeout | undefined; controller: AbortController; counted: boolean }
  >()
  const finish = (request: object) => {
    const entry = timers.get(request)
    if (!entry) return
    clearTimeout(entry.timer)
    if (entry.counted) operations.metrics.activeRequests.dec()
    timers.delete(request)
  }

  // Drain gate and handler timeout: operational routes are exempt from both, so probes keep answering.
  const guard: onRequestHookHandler = async (request, reply) => {
    const controller = new AbortController()
    request.abortSignal = controller.signal
    if (lifecycle.state === 'draining' || lifecycle.state === 'stopped')
      throw new HttpErrors.ServiceDraining()
    operations.metrics.activeRequests.inc()
    const unbounded =
      (request.routeOptions.config as unknown as Record<string, unknown>)[UNBOUNDED_STREAM] === true
    // A long download (the backup stream) is not cut by the handler budget; its client's hang-up still ends it.
    const timer = unbounded
      ? undefined
      : setTimeout(() => {
          controller.abort(new HttpErrors.RequestTimeout(options.requestTimeoutMs))
          if (!reply.sent) {
            reply.code(504)
            void reply.send(new HttpErrors.RequestTimeout(options.requestTimeoutMs))
          }
        }, options.requestTimeoutMs)
    timers.set(request, { timer, controller, counted: true })
    // The response's close (not the request's: that fires once the body is read) tells a client hang-up;
    // it also ends the timer of a request whose client left before onResponse (which then never runs).
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) controller.abort(new Error('client closed the connection'))
      finish(request)
    })
  }
  readYourWrites(app, engine, options.readYourWritesTimeoutMs ?? 5_000)
  backupRoute(app)
  // Attached per route so operational routes (probes, scrapes) carry no timer and no drain gate.
  app.addHook('onRoute', (route) => {
    if (OPERATIONAL_ROUTES.has(route.url)) return
    route.onRequest = [...(route.onRequest === undefined ? [] : [route.onRequest].flat()), guard]
  })
  app.addHook('onResponse', (request, reply, done) => {
    finish(request)
    operations.metrics.httpDuration.observe(
      request.method,
      request.routeOptions.url ?? 'unmatched',
      reply.statusCode,
      reply.elapsedTime / 1000,
    )
    done()
  })

  const readiness = () => {
    const recovery = engine.durability().recovery.outcome
    const providers = operations.sources.domainProviders()
    const faults = engine.storageFaults()
    const checks = {
      engine_initialized: engine.state() !== 'closed',
      storage_recovered: recovery === 'ephemeral' || recovery === 'recovered',
      providers_ready: providers.all_required_ready,
      accepting_requests: lifecycle.state === 'ready',
      storage_writable: faults.state === 'healthy',
    }
    const ready =
      engine.isReady() &&
      checks.storage_recovered &&
      checks.providers_ready &&
      checks.accepting_requests &&
      checks.storage_writable
    return { ready, checks, reason: faults.reason }
  }

  app.get(
    '/health',
    { schema: { tags: ['operations'], summary: 'Health record', response: { 200: HealthRecord } } },
    async () => {
      const providers = operations.sources.domainProviders()
      return {
        status: 'ok' as const,
        service: SERVICE_NAME,
        version: SERVICE_VERSION,
        storage_mode: engine.storageMode,
        uptime_ms: Math.max(0, Date.now() - lifecycle.startedAtMs),
        lifecycle_state: lifecycle.state,
        session_ttl_metrics: operations.sources.sessionTtl(),
        domain_providers: { configured: providers.configured, ready: providers.ready },
        durability: engine.durability(),
        storage_faults: engine.storageFaults(),
        storage_backend: engine.replication()?.backend ?? ('memory' as const),
        replication: engine.replication(),
        bolt: operations.sources.bolt(),
      }
    },
  )

  app.get(
    '/health/live',
    { schema: { tags: ['operations'], summary: 'Liveness', response: { 200: LivenessRecord } } },
    async () => ({
      status: 'live' as const,
      live: true as const,
      service: SERVICE_NAME,
      lifecycle_state: lifecycle.state,
    }),
  )

  app.get(
    '/health/ready',
    {
      schema: {
        tags: ['operations'],
        summary: 'Readiness',
        response: { 200: ReadinessRecord, 503: ReadinessRecord },
      },
    },
    async (_request, reply) => {
      const { ready, checks, reason } = readiness()
      reply.code(ready ? 200 : 503)
      return {
        status: ready ? ('ready' as const) : ('not_ready' as const),
        ready,
        service: SERVICE_NAME,
        lifecycle_state: lifecycle.state,
        checks,
        ...(reason === null ? {} : { reason: `writes suspended: ${reason}` }),
      }
    },
  )

  app.get(
    '/version',
    {
      schema: {
        tags: ['operations'],
        summary: 'Version and storage compatibility',
        response: { 200: VersionRecord },
      },
    },
    async () => ({
      service: SERVICE_NAME,
      version: SERVICE_VERSION,
      commit: options.build?.commit ?? 'unknown',
      build_target: options.build?.target ?? `${process.arch}-${process.platform}`,
      storage_compatibility: {
        supported_versions: [STORAGE_VERSION],
        supported_record_formats: [...READABLE_RECORD_FORMATS],
        active_storage_version: engine.storageMode === 'persistent' ? STORAGE_VERSION : null,
        active_record_format: engine.storageMode === 'persistent' ? RECORD_FORMAT : null,
      },
      ref_mode: operations.sources.refProjection().mode,
    }),
  )

  app.get(
    '/metrics',
    {
      schema: {
        tags: ['operations'],
        summary: 'Prometheus metrics (text exposition format)',
        produces: ['text/plain'],
        response: { 200: { type: 'string' } },
      },
    },
    async (_request, reply) => {
      reply.type(operations.metrics.registry.contentType)
      return operations.metrics.registry.metrics()
    },
  )
}

export default fp(operationsPlugin, {
  name: '@service/plugin-operations',
  fastify: '5.x',
  dependencies: ['@service/plugin-errors', ENGINE_PLUGIN],
})
