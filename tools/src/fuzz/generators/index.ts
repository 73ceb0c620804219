/** Generators shared with the HTTP property tests (e2e). */
export { fromSchema } from './json-schema.js'
export { type JsonMutation, jsonMutation, mutateJson } from './json-mutation.js'
