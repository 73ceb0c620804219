import type { EngineErrorCategory } from '@service/core'

/** HTTP status for each engine error category (the engine knows nothing of HTTP). */
export const STATUS_OF_CATEGORY: Record<EngineErrorCategory, number> = {
  invalid: 400,
  not_found: 404,
  conflict: 409,
  forbidden: 403,
  unprocessable: 422,
  unavailable: 503,
  timeout: 504,
  cancelled: 408,
  too_large: 413,
  bad_gateway: 502,
  internal: 500,
}
