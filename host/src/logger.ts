import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify'
import pino, { type Logger } from 'pino'
import pinoPretty from 'pino-pretty'
import { batchedDestination } from './log-destination.js'

/**
 * Every place a secret could surface in a log record is censored: request headers that carry credentials,
 * and any field named like a token, key or license, at any of the first levels of nesting.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'authorization',
  'authToken',
  'adminToken',
  'token',
  'idempotency_key',
  'license',
  'pem',
  '*.authorization',
  '*.authToken',
  '*.adminToken',
  '*.token',
  '*.idempotency_key',
  '*.license',
  '*.pem',
  '*.*.authToken',
  '*.*.adminToken',
  '*.*.idempotency_key',
]

/**
 * JSON lines on stdout through an asynchronous, batched destination (log-destination.ts): a request's access
 * line never costs a write of its own on the event loop. What is buffered is written when the process exits
 * normally (the "stopped" line included); only a kill -9 can lose the last lines, never data.
 */
export function createLogger(
  level: string,
  destination?: pino.DestinationStream,
  format: 'json' | 'pretty' = 'json',
): Logger {
  return pino(
    {
      level,
      base: { service: 'service-http-server' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    // Readable lines for a person at a terminal; redaction has already run on the record by then.
    format === 'pretty' ? prettyDestination(destination) : (destination ?? batchedDestination()),
  )
}

function prettyDestination(into: pino.DestinationStream | undefined): pino.DestinationStream {
  return pinoPretty({
    destination: into ?? 1,
    colorize: into === undefined && process.stdout.isTTY === true,
    translateTime: 'SYS:HH:MM:ss',
    // The effective settings stay in the JSON lines (and `check-config --print-effective`), not on a person's screen.
    ignore: 'pid,hostname,service,settings',
    singleLine: true,
    sync: true,
  })
}

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'
type LogArgs = Parameters<pino.LogFn>

/**
 * The per-request logger, made a pino child only when the request logs something at an enabled level.
 * Fastify makes a child for every request, and with redaction configured pino passes every child's bindings
 * through the redactor: about a fifth of the CPU a probe costs, for a logger most requests never use.
 */
class RequestLogger {
  #child: Logger | undefined
  constructor(
    private readonly parent: Logger,
    private readonly bindings: pino.Bindings,
  ) {}

  private get logger(): Logger {
    this.#child ??= this.parent.child(this.bindings)
    return this.#child
  }
  private write(level: Level, args: LogArgs): void {
    if (this.isLevelEnabled(level)) Reflect.apply(this.logger[level], this.logger, args)
  }
  get level(): string {
    return (this.#child ?? this.parent).level
  }
  set level(level: string) {
    this.logger.level = level
  }
  isLevelEnabled(level: string): boolean {
    return (this.#child ?? this.parent).isLevelEnabled(level)
  }
  child(bindings: pino.Bindings, options?: pino.ChildLoggerOptions): Logger {
    return this.logger.child(bindings, options)
  }
  fatal(...args: LogArgs): void {
    this.write('fatal', args)
  }
  error(...args: LogArgs): void {
    this.write('error', args)
  }
  warn(...args: LogArgs): void {
    this.write('warn', args)
  }
  info(...args: LogArgs): void {
    this.write('info', args)
  }
  debug(...args: LogArgs): void {
    this.write('debug', args)
  }
  trace(...args: LogArgs): void {
    this.write('trace', args)
  }
  silent(): void {}
}

/** Fastify's `childLoggerFactory`: a lazy child, unless the route sets its own level or serializers. */
export const requestLoggerFactory: NonNullable<FastifyServerOptions['childLoggerFactory']> = (
  logger,
  bindings,
  options,
) => {
  if (Object.keys(options).length > 0) return logger.child(bindings, options)
  // The instance Fastify passes is the pino logger createLogger made.
  return new RequestLogger(logger as Logger, bindings) as unknown as FastifyBaseLogger
}
