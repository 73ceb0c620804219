/**
 * The operational routes: probes, version, scrapes and the OpenAPI document. Public by default, exempt from
 * the rate limit, the handler timeout and the drain gate, and logged at debug. One list for every plugin.
 */
export const OPERATIONAL_ROUTES: ReadonlySet<string> = new Set([
  '/health',
  '/health/live',
  '/health/ready',
  '/version',
  '/metrics',
  '/openapi.json',
])
