export { default as memoryPlugin, type MemoryPluginOptions, type TrustedMemorySettings } from './plugin.js'
export { MemoryOperationRequest, MemoryOperationResponse } from './schemas.js'
