/** TAXII 2.1 serving over the engine; the HTTP routes are @service/plugin-taxii. */
export { type CollectionResource, STIX_MEDIA_TYPE, TaxiiApi, type TaxiiPolicy } from './api.js'
export { TAXII_COLLECTIONS_LEDGER, TaxiiCollections } from './collections.js'
export type { Page, Served } from './pages.js'
export {
  FILTERS,
  nextToken,
  type ObjectQuery,
  type PageLimits,
  parseObjectQuery,
  type RawQuery,
} from './query.js'
export { WorkspaceSelection } from './selection.js'
export { MAX_STATUSES, type StatusDetail, type StatusResource } from './status.js'
