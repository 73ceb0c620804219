import { OPERATIONAL_ROUTES } from '@service/plugin-errors'

/** Which boundary guards a route, decided from its URL pattern alone so every route added later is covered. */
export type RouteAccess = 'admin' | 'bearer' | 'operational'

export function routeAccess(url: string): RouteAccess {
  if (url === '/v1/admin' || url.startsWith('/v1/admin/')) return 'admin'
  if (url === '/v1' || url.startsWith('/v1/')) return 'bearer'
  if (OPERATIONAL_ROUTES.has(url)) return 'operational'
  // Anything else is refused rather than left public by accident.
  return 'bearer'
}

export { OPERATIONAL_ROUTES }
