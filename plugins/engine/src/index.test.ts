import { openEngine } from '@service/core'
import Fastify, { type FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { describe, expect, it } from 'vitest'
import { ENGINE_PLUGIN, engineDecorator } from './index.js'

/** A door as the feature plugins declare themselves: it reads `app.engine` and depends on the decorator. */
const door = fp(
  async (app: FastifyInstance) => {
    app.get('/state', async () => ({ state: app.engine.state() }))
  },
  { name: 'test-door', fastify: '5.x', dependencies: [ENGINE_PLUGIN] },
)

describe('engine decorator', () => {
  it('gives every door the same engine', async () => {
    const engine = await openEngine()
    const app = Fastify()
    await app.register(engineDecorator, { engine })
    await app.register(door)
    const res = await app.inject({ method: 'GET', url: '/state' })
    expect(res.json()).toEqual({ state: engine.state() })
    expect(app.engine).toBe(engine)
    await app.close()
    await engine.close()
  })

  it('refuses to start a door registered without an engine, naming the missing plugin', async () => {
    const app = Fastify()
    await expect(app.register(door).ready()).rejects.toThrow(ENGINE_PLUGIN)
    await app.close()
  })
})
