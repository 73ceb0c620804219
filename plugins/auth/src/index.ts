export { OPERATIONAL_ROUTES, type RouteAccess, routeAccess } from './access.js'
export { type AuthOptions, type DoorAuth, default as authPlugin, type RateLimit } from './plugin.js'
export { bearerMatches } from './token.js'
export { TokenBucket } from './token-bucket.js'
