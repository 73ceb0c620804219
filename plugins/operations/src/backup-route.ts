import { errorResponses } from '@service/plugin-errors'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'

/** Route config of a long download: the handler timeout would cut the stream, so the route is exempt. */
export const UNBOUNDED_STREAM = 'unboundedStream'

/**
 * GET /v1/admin/backup: the door onto the engine's online backup (admin token, checked by the auth plugin
 * for every /v1/admin/* route). The sequence is known before the first byte, so it travels as a header; the
 * tar stream follows (docs/operations.md). A second backup while one runs is 409 BACKUP_IN_PROGRESS.
 */
export function backupRoute(app: FastifyInstance): void {
  app.get(
    '/v1/admin/backup',
    {
      config: { [UNBOUNDED_STREAM]: true },
      schema: {
        tags: ['operations'],
        summary: 'Online backup: a tar stream of the store at one commit sequence (x-service-backup-seq)',
        produces: ['application/x-tar'],
        response: {
          200: Type.String({ description: 'A POSIX tar stream (docs/operations.md)', format: 'binary' }),
          // 409 a backup already running; 503 no durable store to back up (an ephemeral engine).
          ...errorResponses(401, 403, 409, 429, 503),
        },
      },
    },
    async (_request, reply) => {
      const backup = await app.engine.backup()
      reply
        .header('x-service-backup-seq', String(backup.sequence))
        .header('x-service-backup-backend', backup.backend)
        .header('content-disposition', `attachment; filename="backup-${backup.sequence}.tar"`)
        .type('application/x-tar')
      return reply.send(backup.stream)
    },
  )
}
