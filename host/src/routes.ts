import { openEngine } from '@service/core'
import { routeAccess } from '@service/plugin-auth'
import { createLogger } from './logger.js'
import { buildServer } from './server.js'
import type { Settings } from './settings.js'

export interface RegisteredRoute {
  method: string
  url: string
  access: ReturnType<typeof routeAccess>
}

/**
 * The route table exactly as the server registers it (same settings, same plugins), without listening.
 * Operators use it to audit the surface; the e2e auth matrix is generated from it.
 */
export async function registeredRoutes(settings: Settings): Promise<RegisteredRoute[]> {
  const engine = await openEngine({ storage: { mode: 'ephemeral' } })
  const routes: RegisteredRoute[] = []
  const { app } = await buildServer(settings, engine, createLogger('silent'), {
    onRoute: (method, url) => routes.push({ method, url, access: routeAccess(url) }),
  })
  await app.ready()
  await app.close()
  await engine.close()
  return routes
    .filter((r) => r.method !== 'HEAD')
    .sort((a, b) => a.url.localeCompare(b.url) || a.method.localeCompare(b.method))
}

/** The OpenAPI document exactly as /openapi.json serves it, without listening (the client is generated from it). */
export async function openapiDocument(settings: Settings): Promise<unknown> {
  const engine = await openEngine({ storage: { mode: 'ephemeral' } })
  const { app } = await buildServer(settings, engine, createLogger('silent'))
  await app.ready()
  // The swagger decorator comes with the openapi plugin, which buildServer always registers.
  const document = (app as unknown as { swagger(): unknown }).swagger()
  await app.close()
  await engine.close()
  return document
}
