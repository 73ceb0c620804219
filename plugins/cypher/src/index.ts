export { parseMode } from './mode.js'
export { type CypherPluginOptions, default as cypherPlugin } from './plugin.js'
export { CypherRequestBody, CypherResultSchema } from './schemas.js'
