import { errorResponses, okEnvelope } from '@service/plugin-errors'
import type { FastifyInstance } from 'fastify'
import {
  DomainParams,
  DomainProviderStatusList,
  DomainValidateBody,
  DomainValidationResult,
  LicenseSummary,
} from './schemas.js'

/** The domain validation, license and provider-status routes (auth is applied by URL elsewhere). */
export function registerProviderRoutes(app: FastifyInstance): void {
  // Declared apart so the OpenAPI keys (tags, summary) pass the route typing.
  const validateSchema = {
    tags: ['domains'],
    summary: 'Validate a domain payload through its native provider (node.validate/1)',
    params: DomainParams,
    body: DomainValidateBody,
    response: {
      200: okEnvelope(DomainValidationResult),
      ...errorResponses(400, 401, 403, 413, 502, 503, 504),
    },
  }
  app.post<{ Params: DomainParams; Body: DomainValidateBody }>(
    '/v1/domains/:domain/validate',
    { schema: validateSchema },
    async (request, reply) => {
      const { payload, request_id, workspace_id, snapshot_id } = request.body
      try {
        const result = await app.domainProviders.validate(request.params.domain, payload, {
          requestId: request_id,
          workspaceId: workspace_id,
          snapshotId: snapshot_id,
          signal: request.abortSignal,
        })
        return { ok: true as const, result }
      } catch (error) {
        // The handler timeout may already have answered 504 for us.
        if (reply.sent) return reply
        throw error
      }
    },
  )

  const licenseSchema = (admin: boolean) => ({
    tags: ['license'],
    summary: admin ? 'License summary (admin token)' : 'License summary',
    response: { 200: okEnvelope(LicenseSummary), ...errorResponses(...(admin ? [401, 403] : [401])) },
  })
  const license = async () => ({ ok: true as const, result: app.license.summary() })
  app.get('/v1/license/status', { schema: licenseSchema(false) }, license)
  app.get('/v1/admin/license/status', { schema: licenseSchema(true) }, license)

  app.get(
    '/v1/admin/domain-providers/status',
    {
      schema: {
        tags: ['domains'],
        summary: 'Loaded domain providers: identity, capabilities, readiness (admin token)',
        response: { 200: okEnvelope(DomainProviderStatusList), ...errorResponses(401, 403) },
      },
    },
    async () => ({
      ok: true as const,
      result: { providers: app.domainProviders.registry.list().map((p) => p.status()) },
    }),
  )
}
