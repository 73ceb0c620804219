/**
 * The page's Content-Security-Policy. Everything comes from this origin: no CDN, no inline script or style,
 * no eval. `worker-src blob:` is for ForceAtlas2's supervisor, which starts its worker from a Blob of its own
 * code; a Blob can only be made by script that already runs under `script-src 'self'`.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  // The token travels in the fragment, which browsers never send; no-referrer keeps the page URL to itself too.
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  // Revalidated on every load (ETag): a rebuilt page is picked up at once.
  'cache-control': 'no-cache',
}
