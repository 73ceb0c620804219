// The README's first command: install, build, then start the server on 127.0.0.1:8080 with a development
// token, so a newcomer has a running service after one command.
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { build, install, root } from './lib/run.mjs'

const DEV_TOKEN = 'dev-token'

install()
build()
const env = {
  SERVICE_HTTP_AUTH_TOKEN: DEV_TOKEN,
  SERVICE_STORAGE_MODE: 'persistent',
  SERVICE_STORAGE_DIR: join(root, 'data'),
  ...process.env,
}
process.stdout.write(
  `\nStarting service-http-server on http://${env.SERVICE_HTTP_HOST ?? '127.0.0.1'}:${env.SERVICE_HTTP_PORT ?? '8080'}` +
    ` (storage: ${env.SERVICE_STORAGE_MODE}${env.SERVICE_STORAGE_DIR ? ` in ${env.SERVICE_STORAGE_DIR}` : ''}).` +
    `\nThe development bearer token is in SERVICE_HTTP_AUTH_TOKEN (default 'dev-token'). Ctrl-C stops it.` +
    explorerLink(env) +
    '\n\n',
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
    ? `\nExplorer: ${origin}/explorer/#token=${encodeURIComponent(token)}`
    : `\nExplorer: ${origin}/explorer/ (it asks for the token once)`
}

const child = spawn(process.execPath, [join(root, 'host', 'dist', 'main.js'), 'start'], {
  cwd: root,
  env,
  stdio: 'inherit',
})
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
