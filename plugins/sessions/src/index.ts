export { default as sessionsPlugin } from './plugin.js'
