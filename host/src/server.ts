import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { Engine } from '@service/core'
import { WorkspaceSelection } from '@service/core/taxii'
import { authPlugin, OPERATIONAL_ROUTES } from '@service/plugin-auth'
import { boltPlugin } from '@service/plugin-bolt'
import { cypherPlugin } from '@service/plugin-cypher'
import { engineDecorator } from '@service/plugin-engine'
import {
  correlationIdOf,
  errorsPlugin,
  frameworkErrors,
  MAX_PARAM_LENGTH,
  validatorCompiler,
} from '@service/plugin-errors'
import { explorerPlugin } from '@service/plugin-explorer'
import { mcpPlugin } from '@service/plugin-mcp'
import { memoryPlugin } from '@service/plugin-memory'
import { openapiPlugin } from '@service/plugin-openapi'
import { Lifecycle, operationsPlugin } from '@service/plugin-operations'
import { loadPacks, providerHostPlugin } from '@service/plugin-provider-host'
import { refPlugin } from '@service/plugin-ref'
import { seedPlugin } from '@service/plugin-seed'
import { sessionsPlugin } from '@service/plugin-sessions'
import { stixPlugin } from '@service/plugin-stix'
import { isTaxiiUrl, taxiiFrameworkErrors, taxiiPlugin } from '@service/plugin-taxii'
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify'
import type { Logger } from 'pino'
import { requestLoggerFactory } from './logger.js'
import { mcpEngineBackend } from './mcp-backend.js'
import type { Settings } from './settings.js'

const hostPackageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..')

export interface ServerParts {
  app: FastifyInstance
  lifecycle: Lifecycle
}

function readTls(settings: Settings): { key: Buffer; cert: Buffer } | null {
  if (settings.tls === null) return null
  return { key: readFileSync(settings.tls.privateKeyFile), cert: readFileSync(settings.tls.certificateFile) }
}

export interface BuildHooks {
  /** Called for every registered route (method, URL pattern), e.g. to list the route table. */
  onRoute?: (method: string, url: string) => void
}

/**
 * Assembles the HTTP server around an open engine. Registration order matters and is explicit: errors and
 * the OpenAPI collector first (their onRoute hooks must see every route), then auth, then the features.
 */
export async function buildServer(
  settings: Settings,
  engine: Engine,
  logger: Logger,
  hooks: BuildHooks = {},
): Promise<ServerParts> {
  const tls = readTls(settings)
  const options = {
    loggerInstance: logger,
    childLoggerFactory: requestLoggerFactory,
    genReqId: correlationIdOf,
    requestIdHeader: false as const,
    // One access line per request (below) instead of Fastify's two.
    logController: new LogController({ requestIdLogLabel: 'correlation_id', disableRequestLogging: true }),
    bodyLimit: settings.http.maxBodyBytes,
    // Our drain gate answers in the envelope; Fastify's own 503 would not.
    return503OnClosing: false,
    // Slow senders cannot hold a socket open forever.
    requestTimeout: settings.http.requestTimeoutMs + 5_000,
    // Long path parameters reach auth and the route's schema; what the router still refuses gets the envelope.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) =>
      isTaxiiUrl(request.url)
        ? taxiiFrameworkErrors(error, request, reply)
        : frameworkErrors(error, request, reply),
  }
  // One Fastify type for both transports; https only changes the server factory.
  const app = Fastify(
    tls === null ? options : ({ ...options, https: tls } as typeof options),
  ).withTypeProvider<TypeBoxTypeProvider>()
  // Only JSON (and multipart where a route adds it) is accepted; text/plain bodies get 415.
  app.removeContentTypeParser('text/plain')
  app.setValidatorCompiler(validatorCompiler())

  const lifecycle = new Lifecycle()
  const { onRoute } = hooks
  if (onRoute !== undefined) {
    app.addHook('onRoute', (route) => {
      for (const method of [route.method].flat()) onRoute(String(method), route.url)
    })
  }
  await app.register(errorsPlugin)
  await app.register(openapiPlugin)
  await app.register(authPlugin, {
    bearerToken: settings.http.authMode === 'local-insecure' ? null : settings.http.authToken,
    adminToken: settings.http.adminToken,
    operationalPolicy: settings.http.operationalPolicy,
    rateLimit: settings.http.rateLimit,
    refRateLimit: settings.http.refRateLimit,
  })
  // Every door reads the engine from one decorator (`app.engine`) and declares it as a dependency.
  await app.register(engineDecorator, { engine })
  await app.register(operationsPlugin, {
    lifecycle,
    requestTimeoutMs: settings.http.requestTimeoutMs,
    readYourWritesTimeoutMs: settings.storage.readYourWritesTimeoutMs,
    build: { commit: process.env.SERVICE_BUILD_COMMIT, target: undefined },
  })

  app.operations.sources.sessionTtl = () => engine.sessions.ttlMetrics()
  // Packs are packages, resolved from the deployment (the working directory), then beside the host.
  const packs = await loadPacks(settings.enabledPacks, { from: [process.cwd(), hostPackageDir] })
  await app.register(providerHostPlugin, {
    providers: settings.providers,
    license: { pem: settings.license.pem, publicKeyPem: settings.license.publicKeyPem },
    enabledPacks: packs.map((pack) => pack.descriptor),
    packProviders: packs.flatMap(({ name, descriptor, provider }) =>
      provider === null ? [] : [{ ...provider, origin: `pack ${name}`, domain: descriptor.domain }],
    ),
    requestTimeoutMs: settings.http.requestTimeoutMs,
  })
  // The engine enforces the domain gates in every door (seed-search profiles cti/fimi/crisis, the cti pack in
  // STIX validation and strict export); the provider host is what answers them.
  engine.domainGates.use({
    check: (domain, gateOptions) => app.domainGates.check(domain, gateOptions),
    validate: (domain, payload, callOptions) => app.domainProviders.validate(domain, payload, callOptions),
  })
  await app.register(seedPlugin)
  await app.register(stixPlugin, {
    importMaxBodyBytes: settings.http.importMaxBodyBytes,
    onImport: app.operations.metrics.stixImported,
  })
  await app.register(taxiiPlugin, {
    published: WorkspaceSelection.parse(settings.taxii.published),
    writable: WorkspaceSelection.parse(settings.taxii.writable),
    pageDefault: settings.taxii.pageDefault,
    pageMax: settings.taxii.pageMax,
    importMaxBodyBytes: settings.http.importMaxBodyBytes,
    onImport: app.operations.metrics.stixImported,
  })
  await app.register(cypherPlugin, { requestTimeoutMs: settings.http.requestTimeoutMs })
  // Bolt: the same Cypher through Neo4j's protocol, on its own port; it listens once HTTP does (run.ts).
  if (settings.bolt.enabled) {
    await app.register(boltPlugin, {
      host: settings.http.host,
      port: settings.bolt.port,
      tls,
      maxConnections: settings.bolt.maxConnections,
      idleTimeoutMs: settings.bolt.idleTimeoutMs,
      maxMessageBytes: settings.bolt.maxMessageBytes,
      requestTimeoutMs: settings.http.requestTimeoutMs,
      txIdleTimeoutMs: settings.bolt.txIdleTimeoutMs,
      readYourWritesTimeoutMs: settings.storage.readYourWritesTimeoutMs,
      readAddresses: settings.bolt.readAddresses,
    })
  }
  await app.register(sessionsPlugin)
  // The web page over the routes above (public shell, `/` redirects to it).
  await app.register(explorerPlugin)
  await app.register(memoryPlugin, {
    context: settings.memory,
    onOperation: app.operations.metrics.memoryOperation,
  })
  await app.register(mcpPlugin, {
    backend: mcpEngineBackend(settings, engine),
    allowedHosts: settings.mcp.allowedHosts,
    allowedOrigins: settings.mcp.allowedOrigins,
    maxSessions: settings.mcp.maxSessions,
    sessionIdleMs: settings.mcp.sessionIdleMs,
    bodyLimit: settings.http.importMaxBodyBytes,
  })
  app.operations.sources.refProjection = () => engine.ref.figures()
  await app.register(refPlugin, {
    importMaxBodyBytes: settings.http.importMaxBodyBytes,
    batchMax: settings.ref.projectionBatchMax,
    metricsRegistry: app.operations.metrics.registry,
  })

  // Probes and scrapes would drown the access log: they are logged at debug, everything else at info.
  app.addHook('onResponse', (request, reply, done) => {
    // routeOptions is a getter that builds a fresh object: read it once.
    const route = request.routeOptions.url ?? 'unmatched'
    const level = OPERATIONAL_ROUTES.has(route) && reply.statusCode < 400 ? 'debug' : 'info'
    if (!(request.log as unknown as Logger).isLevelEnabled(level)) return done()
    request.log[level](
      {
        method: request.method,
        route,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 100) / 100,
      },
      'request completed',
    )
    done()
  })
  return { app: app as unknown as FastifyInstance, lifecycle }
}
