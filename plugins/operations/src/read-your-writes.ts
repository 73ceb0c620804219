import { type Engine, EngineError } from '@service/core'
import { badRequest } from '@service/plugin-errors'
import type { FastifyInstance } from 'fastify'

/** On a write's answer: the commit sequence a later read may ask to see. */
export const COMMIT_SEQ_HEADER = 'x-service-commit-seq'
/** On a read: wait until this commit sequence is visible here (a follower may lag the primary). */
export const MIN_SEQ_HEADER = 'x-service-min-seq'

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/**
 * Read-your-writes across a primary and its followers. Every successful POST/PUT/PATCH/DELETE answer names
 * the newest durable sequence (its own write's, or later); a read that passes it in x-service-min-seq waits
 * until this server has applied it, up to `timeoutMs`, and otherwise answers 503 STORAGE_FOLLOWER_LAGGING
 * rather than an answer that misses the write.
 */
export function readYourWrites(app: FastifyInstance, engine: Engine, timeoutMs: number): void {
  if (engine.storageMode !== 'persistent') return
  app.addHook('preHandler', async (request) => {
    const raw = request.headers[MIN_SEQ_HEADER]
    if (raw === undefined) return
    const text = Array.isArray(raw) ? raw[0] : raw
    if (text === undefined || !/^\d{1,15}$/.test(text.trim())) {
      throw badRequest('INVALID_REQUEST', `${MIN_SEQ_HEADER} must be a non-negative integer commit sequence`)
    }
    const wanted = Number(text.trim())
    if (await engine.waitForSequence(wanted, timeoutMs)) return
    const seen = engine.replication()?.applied_sequence ?? 0
    throw new EngineError(
      'STORAGE_FOLLOWER_LAGGING',
      `this server has applied commits up to ${seen}, not yet ${wanted}, after waiting ${timeoutMs} ms; retry, or read from the primary`,
    )
  })
  app.addHook('onSend', async (request, reply, payload) => {
    if (WRITE_METHODS.has(request.method) && reply.statusCode < 400) {
      reply.header(COMMIT_SEQ_HEADER, String(engine.durableSequence()))
    }
    return payload
  })
}
