import { HttpErrors } from '@service/plugin-errors'
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifySchema,
  onRequestHookHandler,
} from 'fastify'
import fp from 'fastify-plugin'
import { routeAccess } from './access.js'
import { basicMatches, bearerMatches, secretMatches } from './token.js'
import { TokenBucket } from './token-bucket.js'

export interface RateLimit {
  perSecond: number
  burst: number
}

/**
 * What a door with its own protocol (Bolt) needs of auth: the bearer token compared in constant time, and the
 * bearer routes' rate limit (one bucket, whichever door a request comes through).
 */
export interface DoorAuth {
  /** Null in local-insecure mode, where no token is checked. */
  tokenMatches: ((candidate: string) => boolean) | null
  take(): { ok: true } | { ok: false; retryAfterMs: number }
}

declare module 'fastify' {
  interface FastifyInstance {
    doorAuth: DoorAuth
  }
}

export interface AuthOptions {
  /** The bearer token; null only in local-insecure mode (loopback bind), where no bearer check is made. */
  bearerToken: string | null
  /** The separate admin token; null means admin routes answer 403 ADMIN_AUTH_NOT_CONFIGURED. */
  adminToken: string | null
  /** `authenticated` puts the operational routes behind the bearer token too. */
  operationalPolicy: 'public' | 'authenticated'
  rateLimit: RateLimit
  /** Its own bucket for `/v1/ref/*`. */
  refRateLimit: RateLimit
}

async function authPlugin(app: FastifyInstance, options: AuthOptions): Promise<void> {
  const bearerBucket = new TokenBucket(options.rateLimit.perSecond, options.rateLimit.burst)
  const refBucket = new TokenBucket(options.refRateLimit.perSecond, options.refRateLimit.burst)
  const token = options.bearerToken
  app.decorate('doorAuth', {
    tokenMatches: token === null ? null : (candidate: string) => secretMatches(candidate, token),
    take: () => bearerBucket.take(),
  } satisfies DoorAuth)

  const requireBearer = async (request: FastifyRequest): Promise<void> => {
    if (options.bearerToken === null) return
    const header = request.headers.authorization
    if (header === undefined || header === '') throw new HttpErrors.AuthRequired()
    if (!bearerMatches(header, options.bearerToken)) throw new HttpErrors.AuthInvalid()
  }

  const limit = (bucket: TokenBucket, reply: FastifyReply): void => {
    const taken = bucket.take()
    if (!taken.ok) {
      reply.header('retry-after', String(Math.max(1, Math.ceil(taken.retryAfterMs / 1000))))
      throw new HttpErrors.RateLimited(taken.retryAfterMs)
    }
  }

  const admin: onRequestHookHandler = async (request) => {
    // Checked in this order: configured at all, then present, then right. The bearer token never works here.
    if (options.adminToken === null) throw new HttpErrors.AdminAuthNotConfigured()
    const header = request.headers.authorization
    if (header === undefined || header === '') throw new HttpErrors.AuthRequired()
    if (!bearerMatches(header, options.adminToken)) throw new HttpErrors.AuthInvalid()
  }
  const bearer: onRequestHookHandler = async (request, reply) => {
    await requireBearer(request)
    limit(request.url.startsWith('/v1/ref/') ? refBucket : bearerBucket, reply)
  }
  const taxii: onRequestHookHandler = async (request, reply) => {
    if (options.bearerToken !== null) {
      const header = request.headers.authorization
      // Both schemes are offered in the challenge, as TAXII clients pick Basic from it.
      if (header === undefined || header === '') {
        reply.header('www-authenticate', 'Basic realm="taxii", Bearer')
        throw new HttpErrors.AuthRequired()
      }
      if (!bearerMatches(header, options.bearerToken) && !basicMatches(header, options.bearerToken)) {
        reply.header('www-authenticate', 'Basic realm="taxii", Bearer')
        throw new HttpErrors.AuthInvalid()
      }
    }
    limit(bearerBucket, reply)
  }
  const operational: onRequestHookHandler = async (request) => {
    if (options.operationalPolicy === 'authenticated') await requireBearer(request)
  }

  app.addHook('onRoute', (route) => {
    const access = routeAccess(route.url)
    // The page shell carries no data: no guard, no rate limit, no security requirement.
    if (access === 'public') return
    const guard = { admin, bearer, taxii, operational }[access]
    // Public operational routes get no hook at all: probes and scrapes stay as cheap as possible.
    if (access !== 'operational' || options.operationalPolicy === 'authenticated') {
      route.onRequest = [guard, ...(route.onRequest === undefined ? [] : [route.onRequest].flat())]
    }
    if (access !== 'operational') {
      // Declared in the route schema so the OpenAPI document shows which boundary guards each route.
      route.schema = {
        ...route.schema,
        security:
          access === 'taxii'
            ? [{ bearerAuth: [] }, { basicAuth: [] }]
            : [{ [access === 'admin' ? 'adminToken' : 'bearerAuth']: [] }],
      } as FastifySchema
    }
  })
}

export default fp(authPlugin, {
  name: '@service/plugin-auth',
  fastify: '5.x',
  dependencies: ['@service/plugin-errors'],
})
