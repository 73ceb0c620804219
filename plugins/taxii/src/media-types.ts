/**
 * TAXII 2.1 content negotiation (section 1.6.8): responses are `application/taxii+json;version=2.1`; an
 * Accept that admits no such response is 406, a request body in anything but that type is 415.
 */
export const TAXII_MEDIA_TYPE = 'application/taxii+json;version=2.1'

interface MediaRange {
  type: string
  params: Map<string, string>
}

function parseRange(text: string): MediaRange {
  const [type = '', ...rest] = text.split(';').map((s) => s.trim())
  const params = new Map<string, string>()
  for (const p of rest) {
    const eq = p.indexOf('=')
    if (eq > 0)
      params.set(
        p.slice(0, eq).trim().toLowerCase(),
        p
          .slice(eq + 1)
          .trim()
          .replace(/^"|"$/g, ''),
      )
  }
  return { type: type.toLowerCase(), params }
}

/** True when the TAXII 2.1 media type is acceptable (no Accept header accepts anything, as HTTP says). */
export function acceptsTaxii(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return true
  return accept.split(',').some((item) => {
    const range = parseRange(item)
    if (range.params.get('q') !== undefined && Number(range.params.get('q')) === 0) return false
    if (range.type === '*/*' || range.type === 'application/*') return true
    if (range.type !== 'application/taxii+json') return false
    const version = range.params.get('version')
    return version === undefined || version === '2.1'
  })
}

/** True for `application/taxii+json` with no version or version 2.1. */
export function isTaxiiContentType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false
  const range = parseRange(contentType)
  const version = range.params.get('version')
  return range.type === 'application/taxii+json' && (version === undefined || version === '2.1')
}
