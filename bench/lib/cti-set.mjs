// A deterministic CTI-shaped STIX set (issue 39): malware families, indicators with patterns, names and
// descriptions, and one `indicates` relationship per indicator, streamed as bundles so a 2M set never sits in
// the benchmark's memory at once. 200k scale: 1,000 malware + 100,000 indicators + 100,000 relationships.
const T = '2024-01-02T03:04:05.000Z'
const INDICATOR_TYPES = ['malicious-activity', 'anomalous-activity', 'attribution', 'compromised', 'benign']

const uuid = (kind, n) =>
  `00000000-0000-4${kind.toString(16).padStart(3, '0')}-8000-${n.toString(16).padStart(12, '0')}`

/** The set's sizes for `indicators` indicators: one malware per hundred, one relationship per indicator. */
export function ctiShape(indicators) {
  const malware = Math.max(1, Math.round(indicators / 100))
  return { malware, indicators, relationships: indicators, objects: malware + 2 * indicators }
}

export const malwareId = (n) => `malware--${uuid(1, n)}`
export const indicatorId = (n) => `indicator--${uuid(2, n)}`

function malware(n) {
  return {
    type: 'malware',
    spec_version: '2.1',
    id: malwareId(n),
    created: T,
    modified: T,
    name: `malware family ${n}`,
    description: `Synthetic malware family ${n}, a loader that stages second-stage payloads over HTTPS.`,
    is_family: true,
    malware_types: ['trojan'],
  }
}

function indicator(n) {
  const a = (n >>> 16) & 255
  const b = (n >>> 8) & 255
  const c = n & 255
  return {
    type: 'indicator',
    spec_version: '2.1',
    id: indicatorId(n),
    created: T,
    modified: T,
    name: `indicator ${n} for 10.${a}.${b}.${c}`,
    description: `Command-and-control address 10.${a}.${b}.${c} observed beaconing every 60 s with a ${n % 7 === 0 ? 'self-signed' : 'valid'} certificate; seen in campaign wave ${n % 97}.`,
    indicator_types: [INDICATOR_TYPES[n % INDICATOR_TYPES.length]],
    pattern: `[ipv4-addr:value = '10.${a}.${b}.${c}'] AND [network-traffic:dst_port = ${1024 + (n % 50000)}]`,
    pattern_type: 'stix',
    valid_from: T,
  }
}

function indicates(n, malwareCount) {
  return {
    type: 'relationship',
    spec_version: '2.1',
    id: `relationship--${uuid(3, n)}`,
    created: T,
    modified: T,
    relationship_type: 'indicates',
    source_ref: indicatorId(n),
    target_ref: malwareId(n % malwareCount),
  }
}

/**
 * The set as bundles of about `perBundle` objects: first every malware, then runs of indicators each followed
 * by their relationships (their endpoints resolve in the bundle or the graph). `from`/`to` take a slice of
 * the indicators (the export workspace is the first 10k of the same shape).
 */
export function* ctiBundles(indicators, perBundle = 10_000, from = 0, to = indicators) {
  const { malware: malwareCount } = ctiShape(indicators)
  const objects = []
  for (let m = 0; m < malwareCount; m++) objects.push(malware(m))
  let chunk = 0
  const half = Math.max(1, perBundle >> 1)
  for (let start = from; start < to; start += half) {
    const end = Math.min(to, start + half)
    for (let n = start; n < end; n++) objects.push(indicator(n))
    for (let n = start; n < end; n++) objects.push(indicates(n, malwareCount))
    yield { type: 'bundle', id: `bundle--${uuid(4, chunk++)}`, objects: objects.splice(0) }
  }
}
