// The README's first command: install, build, then run the server on 127.0.0.1:8080 with a development
// token, persistent storage under ./data/graph and the five built-in domain providers pinned by
// build/providers/manifest.json. A development license (`npm run dev-license`) is used when one exists.
//
// The server runs in this process rather than a child: a Ctrl-C then reaches one server, which stops
// gracefully (final checkpoint, lock released, "stopped"); a second Ctrl-C during the drain stops it at once.
// `--no-build` skips install and build (the e2e test runs what `npm test` built).
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { build, install, root } from './lib/run.mjs'

if (!process.argv.includes('--no-build')) {
  install()
  build()
}

// The lock file sits beside the storage directory (`.<dir>.service.lock`), so the graph lives one level
// down: ./data/graph and ./data/.graph.service.lock, both inside the git-ignored ./data. A graph that an
// earlier quickstart wrote straight into ./data stays where it is (.gitignore covers its lock file).
const legacy = existsSync(join(root, 'data', 'manifest.json'))
const storageDir = legacy ? join(root, 'data') : join(root, 'data', 'graph')
const providersDir = join(root, 'build', 'providers')
const manifest = join(providersDir, 'manifest.json')
const devLicense = resolve(
  root,
  process.env.SERVICE_DEV_LICENSE_DIR ?? join('.service-runtime', 'dev-license'),
)
const license = join(devLicense, 'license.pem')
const publicKey = join(devLicense, 'public-key.pem')
const licensed = existsSync(license) && existsSync(publicKey)

const DEV_TOKEN = 'dev-token'
const defaults = {
  // A person at a terminal reads log lines; JSON lines stay the default everywhere else.
  ...(process.stdout.isTTY ? { SERVICE_LOG_FORMAT: 'pretty' } : {}),
  SERVICE_HTTP_AUTH_TOKEN: DEV_TOKEN,
  SERVICE_STORAGE_MODE: 'persistent',
  SERVICE_STORAGE_DIR: storageDir,
  ...(existsSync(manifest)
    ? { SERVICE_DOMAIN_PROVIDER_DIR: providersDir, SERVICE_DOMAIN_PROVIDER_MANIFEST_FILE: manifest }
    : {}),
  ...(licensed && process.env.SERVICE_HTTP_LICENSE_PEM === undefined
    ? { SERVICE_HTTP_LICENSE_PEM_FILE: license, SERVICE_HTTP_LICENSE_PUBLIC_KEY_PEM_FILE: publicKey }
    : {}),
}
// The caller's environment wins over every default.
for (const [key, value] of Object.entries(defaults)) process.env[key] ??= value
const env = process.env

const url = `http://${env.SERVICE_HTTP_HOST ?? '127.0.0.1'}:${env.SERVICE_HTTP_PORT ?? '8080'}`
const boltPort = env.SERVICE_BOLT_PORT ?? '7687'
const boltOn = (env.SERVICE_BOLT_ENABLED ?? 'true').toLowerCase() !== 'false'
const tokenShown = env.SERVICE_HTTP_AUTH_TOKEN === DEV_TOKEN ? DEV_TOKEN : '<your token>'
process.stdout.write(
  [
    '',
    `Starting service-http-server on ${url} (storage: ${env.SERVICE_STORAGE_MODE}${env.SERVICE_STORAGE_DIR ? ` in ${env.SERVICE_STORAGE_DIR}` : ''}).`,
    '',
    'Open:',
    `  ${explorerLink(env)}`,
    `  API       ${url}/openapi.json (bearer ${tokenShown})`,
    `  MCP       ${url}/mcp (bearer ${tokenShown}; or \`node host/dist/main.js mcp\` on stdio)`,
    boltOn
      ? `  Bolt      bolt://${env.SERVICE_HTTP_HOST ?? '127.0.0.1'}:${boltPort} (Neo4j drivers and tools: any user, password ${tokenShown})`
      : '  Bolt      off (SERVICE_BOLT_ENABLED=false)',
    'Next: the five-minute tour in README.md (import ATT&CK, a Cypher query, a recall, the explorer, an agent).',
    '',
    existsSync(manifest)
      ? `Domain providers: ${providersDir} (pinned by manifest.json); medical and research answer at once.`
      : 'Domain providers: not built (no C compiler?); domain validation answers DOMAIN_PROVIDER_NOT_READY.',
    licensed
      ? `cti, fimi, crisis: development license ${license}.`
      : 'cti, fimi, crisis: need a license; `npm run dev-license` issues a development one (restart to use it).',
    'Ctrl-C stops it gracefully; a second Ctrl-C during the drain stops it at once.',
    '',
    '',
  ].join('\n'),
)

/**
 * The explorer page, ready to use: the token rides in the fragment, which the browser keeps to itself (never
 * sent to the server, removed from the address bar by the page). Only the development token is printed; a
 * token of your own stays off the terminal and is typed into the page once.
 */
function explorerLink(settings) {
  const host = settings.SERVICE_HTTP_HOST ?? '127.0.0.1'
  const scheme = settings.SERVICE_TLS_CERTIFICATE_FILE ? 'https' : 'http'
  const origin = `${scheme}://${host.includes(':') ? `[${host}]` : host}:${settings.SERVICE_HTTP_PORT ?? '8080'}`
  const token = settings.SERVICE_HTTP_AUTH_TOKEN
  return token === DEV_TOKEN
    ? `Explorer  ${origin}/explorer/#token=${encodeURIComponent(token)}`
    : `Explorer  ${origin}/explorer/ (it asks for the token once)`
}

const { serve, settingsOrExit } = await import(pathToFileURL(join(root, 'host', 'dist', 'run.js')).href)
await serve(settingsOrExit(env))
