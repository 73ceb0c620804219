export { default as openapiPlugin, OPENAPI_DOCUMENT_VERSION } from './plugin.js'
