/** Generators shared with the HTTP property tests (e2e). */

export { type JsonMutation, jsonMutation, mutateJson } from './json-mutation.js'
export { fromSchema } from './json-schema.js'
