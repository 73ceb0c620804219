export { default as stixPlugin, type StixPluginOptions } from './plugin.js'
export { ImportResultSchema, ValidationResultSchema } from './schemas.js'
