/** The version the service reports (spec: Versioning). The OpenAPI document's own version is separate. */
export const SERVICE_VERSION = '0.3.1'
export const SERVICE_NAME = 'service-http-server'
/** Storage compatibility boundary (spec: Versioning 5). */
export const STORAGE_VERSION = 'V1'
export const RECORD_FORMAT = 'JsonLinesV1'
