export { default as sessionsPlugin, type SessionsPluginOptions } from './plugin.js'
