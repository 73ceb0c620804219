export { LIFECYCLE_STATES, Lifecycle, type LifecycleState } from './lifecycle.js'
export { default as operationsPlugin, type Operations, type OperationsOptions } from './plugin.js'
export { HealthRecord, LivenessRecord, ReadinessRecord, VersionRecord } from './schemas.js'
export {
  type BoltHealth,
  defaultHealthSources,
  type HealthSources,
  type RefProjectionFigures,
  WRITE_AUTHORITIES,
  type WriteAuthority,
} from './sources.js'
