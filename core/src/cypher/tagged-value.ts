import { isPoint, type PointValue } from './spatial/point.js'
import { decodePointTag, encodePointTag, POINT_TAG } from './spatial/tagged.js'
import { decodeTemporalTag, encodeTemporalTag } from './temporal/tagged.js'
import { isTemporal, type TemporalValue } from './temporal/values.js'

/** A value JSON carries as a one-key tagged object: temporal values and points. */
export type TaggedValue = TemporalValue | PointValue

export const isTaggedValue = (value: unknown): value is TaggedValue => isTemporal(value) || isPoint(value)

export function encodeTaggedValue(value: TaggedValue): Record<string, unknown> {
  return isPoint(value) ? encodePointTag(value) : encodeTemporalTag(value)
}

/**
 * The temporal value or point an object stands for, or undefined for an ordinary map (see the tags'
 * modules); a malformed body under a known tag is an error.
 */
export function decodeTaggedValue(object: Record<string, unknown>): TaggedValue | undefined {
  let key: string | undefined
  for (const k in object) {
    if (key !== undefined) return undefined
    key = k
  }
  if (key === POINT_TAG) return decodePointTag(object[key])
  return decodeTemporalTag(object)
}
