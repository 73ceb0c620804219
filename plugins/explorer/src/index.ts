export { default as explorerPlugin, EXPLORER_PATH, type ExplorerPluginOptions } from './plugin.js'
export { CONTENT_SECURITY_POLICY } from './security-headers.js'
