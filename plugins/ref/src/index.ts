export { default as refPlugin, type RefPluginOptions } from './plugin.js'
