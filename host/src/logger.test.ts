import { Writable } from 'node:stream'
import type { FastifyBaseLogger } from 'fastify'
import type { Logger } from 'pino'
import { describe, expect, it, vi } from 'vitest'
import { createLogger, requestLoggerFactory } from './logger.js'

function capture() {
  const lines: Record<string, unknown>[] = []
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)))
      done()
    },
  })
  return { lines, logger: createLogger('info', stream) }
}
const flush = () => new Promise((resolve) => setImmediate(resolve))
const make = (logger: ReturnType<typeof createLogger>, options = {}) =>
  requestLoggerFactory.call(
    undefined as never,
    logger,
    { correlation_id: 'req-1' },
    options,
    undefined as never,
  )

describe('request logger', () => {
  it('makes no pino child for a request that logs nothing at an enabled level', () => {
    const { logger } = capture()
    const child = vi.spyOn(logger, 'child')
    const log = make(logger) as unknown as Logger
    log.debug({ route: '/health' }, 'below the level')
    log.trace('far below')
    expect(log.isLevelEnabled('debug')).toBe(false)
    expect(log.isLevelEnabled('info')).toBe(true)
    expect(child).not.toHaveBeenCalled()
  })

  it('logs with the correlation id and censors secrets once it does log', async () => {
    const { lines, logger } = capture()
    const log = make(logger) as FastifyBaseLogger
    log.info({ token: 'secret-token', headers: { authorization: 'Bearer secret-token' } }, 'request refused')
    log.error('second line, same child')
    await flush()
    expect(lines).toHaveLength(2)
    expect(lines[0]).toMatchObject({ correlation_id: 'req-1', msg: 'request refused', token: '[redacted]' })
    expect(JSON.stringify(lines)).not.toContain('secret-token')
    expect(lines[1]).toMatchObject({ correlation_id: 'req-1', level: 50 })
  })

  it('honours a per-request level change and a route-level option', async () => {
    const { lines, logger } = capture()
    const log = make(logger) as FastifyBaseLogger
    log.level = 'debug'
    log.debug('now enabled')
    const routeLevel = make(logger, { level: 'warn' }) as FastifyBaseLogger
    routeLevel.info('suppressed by the route level')
    routeLevel.warn('kept')
    await flush()
    expect(lines.map((l) => l.msg)).toEqual(['now enabled', 'kept'])
    expect(logger.level).toBe('info')
  })
})

describe('pretty log lines', () => {
  it('writes one readable line per record, secrets censored and the settings left out', () => {
    let text = ''
    const sink = new Writable({
      write(chunk, _encoding, done) {
        text += String(chunk)
        done()
      },
    })
    const logger = createLogger('info', sink as never, 'pretty')
    logger.info(
      { event: 'listening', token: 'sekrit-token', settings: { big: true } },
      'service-http-server listening',
    )
    expect(text).toMatch(
      /^\[\d\d:\d\d:\d\d\] INFO: service-http-server listening \{"event":"listening","token":"\[redacted\]"\}\n$/,
    )
    expect(text).not.toContain('sekrit')
  })
})
