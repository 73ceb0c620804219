export { temporalProperty } from './accessors.js'
export { durationNegate, durationScale, temporalAdd, temporalSubtract } from './arithmetic.js'
export { temporalCompare, temporalEquals, temporalKey, temporalOrder, temporalRank } from './compare.js'
export { formatTemporal } from './format.js'
export { TemporalFromFields } from './from-fields.js'
export { TEMPORAL_FUNCTIONS } from './functions.js'
export { decodeTemporalTag, encodeTemporalTag, TEMPORAL_TAGS } from './tagged.js'
export {
  DateTimeValue,
  DateValue,
  DurationValue,
  isTemporal,
  LocalDateTimeValue,
  LocalTimeValue,
  type TemporalValue,
  TimeValue,
  temporalTypeName,
} from './values.js'
