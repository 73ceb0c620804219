import type { Engine } from '@service/core'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

declare module 'fastify' {
  interface FastifyInstance {
    /** The open engine every door maps onto; set once by `@service/plugin-engine`. */
    engine: Engine
  }
}

export interface EnginePluginOptions {
  engine: Engine
}

/**
 * One decorator instead of an `engine` option passed to each plugin: a door declares
 * `dependencies: [ENGINE_PLUGIN]` and reads `app.engine`, so registering a door without an engine fails at
 * start-up with Fastify's own message naming the missing plugin.
 */
export const ENGINE_PLUGIN = '@service/plugin-engine'

async function enginePlugin(app: FastifyInstance, { engine }: EnginePluginOptions): Promise<void> {
  app.decorate('engine', engine)
}

export const engineDecorator = fp(enginePlugin, { name: ENGINE_PLUGIN, fastify: '5.x' })
export default engineDecorator
