/**
 * Typing shared by every route plugin. The documentation keywords are read by @fastify/swagger when it
 * builds the OpenAPI document; `abortSignal` is set per request by the operations plugin (timeout and
 * client disconnect) and handed to engine calls.
 */
declare module 'fastify' {
  interface FastifySchema {
    tags?: string[]
    summary?: string
    description?: string
    hide?: boolean
    produces?: string[]
    consumes?: string[]
    security?: Record<string, string[]>[]
  }
  interface FastifyRequest {
    abortSignal: AbortSignal
  }
}

export {}
