// `pnpm bench providers`: validate calls per second through HTTP for each domain (real native providers,
// licensed), and the host's per-call overhead measured against the no-op test provider.
import { join } from 'node:path'
import { generateLicenseKeyPair, issueLicense } from '@service/plugin-provider-host/testing'
import autocannon from 'autocannon'
import { BENCH_TOKEN, repoRoot, startService } from './lib/server.mjs'

const SECONDS = Number(process.env.BENCH_DURATION_S ?? 5)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16)
const keys = generateLicenseKeyPair()
const license = issueLicense(
  {
    client_uuid: '6f1c7a52-8d3e-4b1a-9c55-2f4e0d7b1a10',
    client_email: 'bench@example.org',
    modules: ['cti', 'fimi', 'crisis'],
    valid_until: new Date(Date.now() + 86_400_000).toISOString(),
  },
  keys.privateKeyPem,
)
const common = {
  SERVICE_HTTP_LICENSE_PEM: license,
  SERVICE_HTTP_LICENSE_PUBLIC_KEY_PEM: keys.publicKeyPem,
  SERVICE_LOG_LEVEL: 'warn',
  SERVICE_SEED_EMBEDDING_PROVIDER: 'none',
}
const payloads = {
  cti: {
    labels: ['Indicator'],
    name: 'c2 beacon',
    pattern: "[ipv4-addr:value = '198.51.100.7']",
    pattern_type: 'stix',
    valid_from: '2026-01-01T00:00:00Z',
    confidence: 0.9,
    evidence_refs: ['report--1'],
  },
  fimi: { labels: ['Account'], platform: 'x.com', handle: '@example_outlet' },
  crisis: { labels: ['HumanitarianNeed'], sector: 'health', people_in_need: 12000, people_targeted: 8000 },
  medical: {
    labels: ['Finding'],
    evidence_refs: ['evidence--trial-registry-1'],
    intended_status: 'validated',
  },
  research: {
    labels: ['Claim'],
    asserting_work: 'doi:10.1000/xyz',
    credited_actor: 'orcid:0000-0002-1825-0097',
    evidence_refs: ['evidence--1'],
    intended_status: 'validated',
  },
}
const load = (url, domain, payload) =>
  new Promise((resolve, reject) =>
    autocannon(
      {
        url: `${url}/v1/domains/${domain}/validate`,
        method: 'POST',
        connections: CONNECTIONS,
        duration: SECONDS,
        headers: { authorization: `Bearer ${BENCH_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ payload }),
      },
      (err, r) => (err ? reject(err) : resolve(r)),
    ),
  )

const rows = []
const providers = join(repoRoot, 'build', 'providers')
const real = await startService({
  ...common,
  SERVICE_DOMAIN_PROVIDER_DIR: providers,
  SERVICE_DOMAIN_PROVIDER_MANIFEST_FILE: join(providers, 'manifest.json'),
})
for (const [domain, payload] of Object.entries(payloads)) {
  const r = await load(real.url, domain, payload)
  rows.push({
    name: `${domain} (real provider)`,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
  })
  process.stderr.write(`  ${domain}: ${Math.round(r.requests.average)} req/s\n`)
}
// The same HTTP path with nothing behind it but the route: /v1/license/status.
const baseline = await new Promise((resolve, reject) =>
  autocannon(
    {
      url: `${real.url}/v1/license/status`,
      connections: CONNECTIONS,
      duration: SECONDS,
      headers: { authorization: `Bearer ${BENCH_TOKEN}` },
    },
    (e, r) => (e ? reject(e) : resolve(r)),
  ),
)
rows.push({
  name: 'HTTP baseline: GET /v1/license/status',
  rps: baseline.requests.average,
  p50: baseline.latency.p50,
  p99: baseline.latency.p99,
  non2xx: baseline.non2xx,
})
await real.stop()

const testProviders = join(repoRoot, 'build', 'test-providers')
const noop = await startService({
  ...common,
  SERVICE_DOMAIN_PROVIDER_DIR: testProviders,
  SERVICE_DOMAIN_PROVIDER_MANIFEST_FILE: join(testProviders, 'manifest.noop.json'),
})
const r = await load(noop.url, 'cti', payloads.cti)
rows.push({
  name: 'cti (no-op provider)',
  rps: r.requests.average,
  p50: r.latency.p50,
  p99: r.latency.p99,
  non2xx: r.non2xx,
})
await noop.stop()

// In-process: the provider call alone (ffi-rs + JSON both ways), no HTTP.
const { loadProviders } = await import('@service/plugin-provider-host')
const manifestFile = join(testProviders, 'manifest.noop.json')
const registry = await loadProviders({ dir: testProviders, manifestFile })
const provider = registry.get('cti')
const calls = 5000
for (let i = 0; i < 200; i++)
  await provider.validate({ payload: payloads.cti, requestId: `w${i}` }, { timeoutMs: 5000 })
const t = performance.now()
for (let i = 0; i < calls; i++)
  await provider.validate({ payload: payloads.cti, requestId: `r${i}` }, { timeoutMs: 5000 })
const inProcess = ((performance.now() - t) * 1000) / calls
await registry.close()

const noopRps = rows.find((x) => x.name.startsWith('cti (no-op'))?.rps ?? 0
console.log(`\nproviders: ${CONNECTIONS} connections, ${SECONDS} s per row, Node ${process.version}`)
console.log('| route | req/s | p50 ms | p99 ms | non-2xx |')
console.log('|---|---:|---:|---:|---:|')
for (const x of rows) console.log(`| ${x.name} | ${Math.round(x.rps)} | ${x.p50} | ${x.p99} | ${x.non2xx} |`)
const perCall = (1e6 / noopRps - 1e6 / baseline.requests.average).toFixed(0)
console.log(
  `\nhost overhead per validate call (no-op provider vs. plain bearer route, at ${CONNECTIONS} connections): ~${perCall} µs`,
)
console.log(`in-process provider call (ffi-rs + JSON both ways, serialised): ${inProcess.toFixed(1)} µs`)
