/** Test helpers for packages that build on the engine. */
export { openEngine as openTestEngine } from '../engine/engine.js'
