import { describe, expect, it } from 'vitest'
import { acceptsTaxii, isTaxiiContentType } from './media-types.js'

describe('TAXII content negotiation', () => {
  it('accepts the TAXII 2.1 media type, unversioned, and wildcards; refuses others and q=0', () => {
    for (const accept of [
      undefined,
      'application/taxii+json;version=2.1',
      'application/taxii+json; version="2.1"',
      'application/taxii+json',
      '*/*',
      'application/*;q=0.5',
      'text/html, application/taxii+json;version=2.1;q=0.9',
    ])
      expect(acceptsTaxii(accept), String(accept)).toBe(true)
    for (const accept of [
      'application/json',
      'application/taxii+json;version=2.0',
      'application/taxii+json;q=0',
    ])
      expect(acceptsTaxii(accept), accept).toBe(false)
  })

  it('takes request bodies only in the TAXII 2.1 media type', () => {
    expect(isTaxiiContentType('application/taxii+json;version=2.1')).toBe(true)
    expect(isTaxiiContentType('Application/TAXII+json')).toBe(true)
    for (const type of [undefined, 'application/json', 'application/taxii+json;version=2.0'])
      expect(isTaxiiContentType(type), String(type)).toBe(false)
  })
})
