export { isTaxiiUrl, taxiiFrameworkErrors } from './errors.js'
export { acceptsTaxii, isTaxiiContentType, TAXII_MEDIA_TYPE } from './media-types.js'
export { API_ROOT, default as taxiiPlugin, type TaxiiPluginOptions } from './plugin.js'
