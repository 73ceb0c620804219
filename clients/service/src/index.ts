export {
  createServiceClient,
  type ServiceClient,
  ServiceClientError,
  type ServiceClientOptions,
  unwrap,
} from './client.js'
export type { components, operations, paths } from './openapi.js'
