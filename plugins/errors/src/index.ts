import './fastify-types.js'

export { badRequest, HttpError, HttpErrors } from './codes.js'
export { correlationIdOf } from './correlation.js'
export { ErrorEnvelope, errorEnvelope, errorResponses, okEnvelope } from './envelope.js'
export { OPERATIONAL_ROUTES } from './operational-routes.js'
export { default as errorsPlugin, mapError, sendError } from './plugin.js'
export { STATUS_OF_CATEGORY } from './status.js'
export { validatorCompiler } from './validation.js'
