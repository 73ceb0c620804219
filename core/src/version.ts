/** The version the service reports (spec: Versioning). The OpenAPI document's own version is separate. */
export const SERVICE_VERSION = '0.3.1'
export const SERVICE_NAME = 'service-http-server'
/** Storage compatibility boundary (spec: Versioning 5). */
export const STORAGE_VERSION = 'V1'
/**
 * V2 adds temporal property values (`{"$date": "2015-07-21"}` and its siblings). A build that knows only V1
 * refuses a V2 directory (incompatible storage), so it never misreads them; V1 directories hold none and
 * are read as they are, their manifest rewritten as V2 when opened.
 */
export const RECORD_FORMAT = 'JsonLinesV2'
/** Record formats this build reads: the current one and its predecessors. */
export const READABLE_RECORD_FORMATS: readonly string[] = ['JsonLinesV1', RECORD_FORMAT]
