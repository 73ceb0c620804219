/** The version the service reports (spec: Versioning). The OpenAPI document's own version is separate. */
export const SERVICE_VERSION = '0.3.1'
export const SERVICE_NAME = 'service-http-server'
/** Storage compatibility boundary (spec: Versioning 5). */
export const STORAGE_VERSION = 'V1'
/**
 * The record format a directory has until it stores something only a newer format carries. JsonLinesV1 is the
 * spec's compatibility boundary, so a deployment that never stores a temporal value stays on it.
 */
export const RECORD_FORMAT = 'JsonLinesV1'
/**
 * V2 adds temporal property values (`{"$date": "2015-07-21"}` and its siblings). A directory's manifest turns
 * to V2 just before the first log record holding one is written, so a build that knows only V1 refuses it
 * (incompatible storage) instead of misreading it.
 */
export const TEMPORAL_RECORD_FORMAT = 'JsonLinesV2'
/**
 * V3 adds the payload file: checkpoint cells `{"$payload":[offset,bytes]}` referring to long values kept in
 * `payloads.dat` (issue 39), the manifest's `payloads` entry giving its durable length. The first checkpoint
 * that writes a payload raises the manifest to V3 (V3 carries everything V2 does), so an older build refuses the
 * directory instead of loading references it cannot resolve.
 */
export const PAYLOAD_RECORD_FORMAT = 'JsonLinesV3'
/** Record formats this build reads. */
export const READABLE_RECORD_FORMATS: readonly string[] = [
  RECORD_FORMAT,
  TEMPORAL_RECORD_FORMAT,
  PAYLOAD_RECORD_FORMAT,
]
