import { EngineError, openEngine, SERVICE_VERSION } from '@service/core'
import { httpReference, httpReferenceProbe } from '@service/core/ref'
import type { Logger } from 'pino'
import { ExitCode } from './exit-codes.js'
import { capHeapGrowth } from './heap-growth.js'
import { HeapRelease, processHeapProbe } from './heap-release.js'
import { createLogger } from './logger.js'
import { buildServer } from './server.js'
import { loadSettings, redactedSettings, type Settings, SettingsError } from './settings.js'

const STARTUP_EXIT_CODES: Record<string, number> = {
  STORAGE_DIRECTORY_OWNED: ExitCode.DirectoryOwned,
  STORAGE_OWNED_BY_ANOTHER_PRIMARY: ExitCode.DirectoryOwned,
  STORAGE_INCOMPATIBLE: ExitCode.IncompatibleStorage,
  STORAGE_RECOVERY_FAILED: ExitCode.RecoveryIntegrity,
}

/** Repeats of a signal closer together than this are one request (one Ctrl-C delivered twice). */
const SIGNAL_ECHO_MS = 300

/** Writes a start-up failure to stderr: one line a person can act on, never a secret. */
function fail(message: string, code: number): never {
  process.stderr.write(`service-http-server: ${message}\n`)
  process.exit(code)
}

export function settingsOrExit(
  env: NodeJS.ProcessEnv = process.env,
  door: 'http' | 'stdio' = 'http',
): Settings {
  try {
    return loadSettings(env, process.cwd(), door)
  } catch (error) {
    if (error instanceof SettingsError) fail(error.message, ExitCode.Config)
    throw error
  }
}

/** The engine as the settings describe it: the server and the embedded MCP stdio server open the same one. */
export function engineOptions(settings: Settings, logger: Logger): Parameters<typeof openEngine>[0] {
  return {
    storage: {
      mode: settings.storage.mode,
      ...(settings.storage.dir === null ? {} : { dir: settings.storage.dir }),
      requireFsync: settings.storage.requireFsync,
      strictRecovery: settings.storage.strictRecovery,
      segmentBytes: settings.storage.segmentBytes,
      checkpointEveryBytes: settings.storage.checkpointEveryBytes,
      payloadMinBytes: settings.storage.payloadMinBytes,
      payloadCacheBytes: settings.storage.payloadCacheBytes,
      ...(settings.storage.walArchiveDir === null ? {} : { walArchiveDir: settings.storage.walArchiveDir }),
      ...(settings.storage.postgres === null ? {} : { postgres: settings.storage.postgres }),
    },
    sessionIdleTtlMs: settings.http.sessionIdleTtlMs,
    // What one request may materialise (spec: persistent request projection bounds).
    cypherBudgets: {
      maxHotNodes: settings.storage.maxHotNodes,
      maxHotRelationships: settings.storage.maxHotRelationships,
      maxWarmAdjacencyEntries: settings.storage.maxWarmAdjacencyEntries,
      maxStreamedRecords: settings.bolt.maxStreamedRecords,
    },
    onWarning: (message) => logger.warn({ event: 'storage_warning' }, message),
    cypherImport: {
      ...(settings.cypherImport.importDir === null ? {} : { importDir: settings.cypherImport.importDir }),
      allowedUrls: settings.cypherImport.allowedUrls,
    },
    // CALL { … } IN TRANSACTIONS (a LOAD CSV load, say): one line per durable batch.
    onCypherBatch: (progress) =>
      logger.info(
        {
          event: 'cypher_batch_committed',
          workspace: progress.workspaceId,
          batch: progress.batch,
          rows: progress.rows,
          elapsed_ms: progress.elapsedMs,
          ...(progress.correlationId === undefined ? {} : { correlation_id: progress.correlationId }),
        },
        'batch committed',
      ),
    ref: {
      maxOperations: settings.ref.syncMaxOperations,
      outboxCapacity: settings.ref.syncMaxReplayIdentities,
      maxConcurrency: settings.ref.shadowMaxConcurrency,
      timeoutMs: settings.ref.shadowTimeoutMs,
      batchMax: settings.ref.projectionBatchMax,
      retryIntervalMs: settings.ref.projectionRetryBaseMs,
      retryMaxMs: settings.ref.projectionRetryMaxMs,
      receiptRetention: {
        count: settings.ref.receiptRetentionCount,
        ageMs: settings.ref.receiptRetentionMs,
      },
      reference:
        settings.ref.referenceEndpoint === null
          ? null
          : httpReference(
              settings.ref.referenceEndpoint,
              settings.ref.referenceAuthToken,
              settings.ref.shadowMaxConcurrency,
            ),
      referenceProbe:
        settings.ref.referenceEndpoint === null
          ? null
          : httpReferenceProbe(settings.ref.referenceEndpoint, settings.ref.referenceAuthToken),
    },
  }
}

/** Opens the engine, or exits with the start-up failure's code (directory owned, incompatible, recovery). */
export async function openEngineOrExit(settings: Settings, logger: Logger) {
  try {
    return await openEngine(engineOptions(settings, logger))
  } catch (error) {
    if (error instanceof EngineError)
      fail(`${error.code}: ${error.message}`, STARTUP_EXIT_CODES[error.code] ?? ExitCode.Startup)
    throw error
  }
}

/** Starts the server and serves until SIGTERM/SIGINT, then drains within the shutdown timeout. */
export async function serve(settings: Settings): Promise<void> {
  capHeapGrowth(settings.heapGrowingPercent)
  // Taken before the store loads, so the heap a recovery leaves counts as growth. With V8's own heap policy
  // asked for (growing percent 0), no collections of ours either.
  const probe = settings.heapGrowingPercent > 0 ? processHeapProbe() : null
  const heapRelease = probe === null ? null : new HeapRelease(probe)
  const logger: Logger = createLogger(settings.log.level, undefined, settings.log.format)
  const engine = await openEngineOrExit(settings, logger)

  let parts: Awaited<ReturnType<typeof buildServer>>
  try {
    parts = await buildServer(settings, engine, logger)
  } catch (error) {
    await engine.close()
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'EACCES' || code === 'ERR_OSSL_PEM_NO_START_LINE') {
      fail(
        `TLS certificate or key cannot be read (${code}); check SERVICE_TLS_CERTIFICATE_FILE and SERVICE_TLS_PRIVATE_KEY_FILE`,
        ExitCode.Config,
      )
    }
    fail(`start-up failed: ${(error as Error).message}`, ExitCode.Startup)
  }
  const { app, lifecycle } = parts

  try {
    await app.listen({ host: settings.http.host, port: settings.http.port })
  } catch (error) {
    await engine.close()
    fail(
      `cannot listen on ${settings.http.host}:${settings.http.port}: ${(error as Error).message}`,
      ExitCode.Startup,
    )
  }
  let boltPort: number | null = null
  if (settings.bolt.enabled) {
    try {
      boltPort = await app.bolt.listen()
    } catch (error) {
      await app.close()
      await engine.close()
      fail(
        `cannot listen for Bolt on ${settings.http.host}:${settings.bolt.port}: ${(error as Error).message} (set SERVICE_BOLT_PORT, or SERVICE_BOLT_ENABLED=false)`,
        ExitCode.Startup,
      )
    }
  }
  lifecycle.set('ready')
  heapRelease?.start()
  const address = app.server.address()
  const port = typeof address === 'object' && address !== null ? address.port : settings.http.port
  logger.info(
    {
      event: 'listening',
      url: `${settings.tls === null ? 'http' : 'https'}://${settings.http.host}:${port}`,
      port,
      bolt:
        boltPort === null
          ? null
          : `${settings.tls === null ? 'bolt' : 'bolt+s'}://${settings.http.host}:${boltPort}`,
      version: SERVICE_VERSION,
      storage_mode: engine.storageMode,
      settings: redactedSettings(settings),
    },
    'service-http-server listening',
  )

  let drainStarted: { signal: string; at: number } | null = null
  const shutdown = async (signal: string) => {
    lifecycle.set('draining')
    heapRelease?.stop()
    logger.info({ event: 'draining', signal }, 'draining in-flight requests')
    const deadline = new Promise<'timeout'>((resolve) =>
      setTimeout(() => resolve('timeout'), settings.http.shutdownTimeoutMs).unref(),
    )
    const outcome = await Promise.race([app.close().then(() => 'closed' as const), deadline])
    let exitCode: number = ExitCode.Ok
    if (outcome === 'timeout') {
      lifecycle.shutdownFailures += 1
      exitCode = ExitCode.ShutdownTimeout
      logger.error(
        { event: 'shutdown_timeout', timeout_ms: settings.http.shutdownTimeoutMs },
        'in-flight requests did not finish before the shutdown timeout',
      )
    }
    try {
      await engine.close()
    } catch (error) {
      exitCode = ExitCode.ShutdownTimeout
      logger.error({ err: error }, 'engine failed to close cleanly')
    }
    lifecycle.set('stopped')
    // The log destination is asynchronous: let what is in flight land first, so "stopped" is the last line.
    await flushed(logger)
    logger.info({ event: 'stopped', exit_code: exitCode }, 'stopped')
    await flushed(logger)
    process.exit(exitCode)
  }
  // `process.on`, not `once`: a signal arriving during the drain must not fall through to Node's default
  // (which kills the process mid-checkpoint). One Ctrl-C often arrives twice (the terminal signals the
  // whole process group and `npm run` forwards it too), so a repeat within SIGNAL_ECHO_MS is the same
  // request; a later one is the explicit "stop now".
  const onSignal = (signal: NodeJS.Signals) => {
    const now = Date.now()
    if (drainStarted === null) {
      drainStarted = { signal, at: now }
      void shutdown(signal)
      return
    }
    if (now - drainStarted.at < SIGNAL_ECHO_MS) return
    logger.warn(
      { event: 'shutdown_forced', signal },
      `second ${signal} during the drain: stopping at once without the final checkpoint (the write-ahead log keeps every acknowledged write; the next start recovers and takes over the lock)`,
    )
    logger.flush()
    process.exit(ExitCode.ShutdownTimeout)
  }
  process.on('SIGTERM', onSignal)
  process.on('SIGINT', onSignal)
}

/** Resolves once the logger's asynchronous destination has written what it holds (never rejects). */
const flushed = (logger: Logger) => new Promise<void>((resolve) => logger.flush(() => resolve()))
