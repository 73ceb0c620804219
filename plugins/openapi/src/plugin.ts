import swagger from '@fastify/swagger'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

/** The interface description's own version (spec: Versioning 1); the service itself reports 0.3.1. */
export const OPENAPI_DOCUMENT_VERSION = '0.1.0'

async function openapiPlugin(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Graph Memory Service',
        version: OPENAPI_DOCUMENT_VERSION,
        description:
          'Single-node structured graph-memory runtime. Errors use {ok:false,error:{code,message}}.',
      },
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'SERVICE_HTTP_AUTH_TOKEN' },
          basicAuth: {
            type: 'http',
            scheme: 'basic',
            description: 'TAXII routes: any user name, SERVICE_HTTP_AUTH_TOKEN as the password',
          },
          adminToken: {
            type: 'http',
            scheme: 'bearer',
            description: 'SERVICE_HTTP_ADMIN_AUTH_TOKEN (admin routes only)',
          },
        },
      },
    },
    // TypeBox schemas carry `$id`s; keep their names in the document instead of def-0, def-1, …
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  })
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())
}

export default fp(openapiPlugin, { name: '@service/plugin-openapi', fastify: '5.x' })
