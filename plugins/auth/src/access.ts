import { OPERATIONAL_ROUTES } from '@service/plugin-errors'

/**
 * Which boundary guards a route, decided from its URL pattern alone so every route added later is covered.
 * `taxii` is the bearer token too, also accepted as HTTP Basic (TAXII 2.1 requires servers to offer it).
 */
export type RouteAccess = 'admin' | 'bearer' | 'operational' | 'taxii' | 'public'

/**
 * The explorer page's shell (and `/`, which redirects to it): public because it holds no data; every call it
 * makes goes to a bearer route. Named exactly, so no other path becomes public by accident.
 */
export const isPageRoute = (url: string): boolean =>
  url === '/' || url === '/explorer' || url === '/explorer/*'

export function routeAccess(url: string): RouteAccess {
  if (url === '/v1/admin' || url.startsWith('/v1/admin/')) return 'admin'
  if (url === '/taxii2' || url.startsWith('/taxii2/')) return 'taxii'
  if (url === '/v1' || url.startsWith('/v1/')) return 'bearer'
  if (OPERATIONAL_ROUTES.has(url)) return 'operational'
  if (isPageRoute(url)) return 'public'
  // Anything else is refused rather than left public by accident.
  return 'bearer'
}

export { OPERATIONAL_ROUTES }
