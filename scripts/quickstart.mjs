// The README's first command: install, build, then start the server on 127.0.0.1:8080 with a development
// token, so a newcomer has a running service after one command.
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { build, install, root } from './lib/run.mjs'

install()
build()
const env = {
  SERVICE_HTTP_AUTH_TOKEN: 'dev-token',
  SERVICE_STORAGE_MODE: 'persistent',
  SERVICE_STORAGE_DIR: join(root, 'data'),
  ...process.env,
}
process.stdout.write(
  `\nStarting service-http-server on http://${env.SERVICE_HTTP_HOST ?? '127.0.0.1'}:${env.SERVICE_HTTP_PORT ?? '8080'}` +
    ` (storage: ${env.SERVICE_STORAGE_MODE}${env.SERVICE_STORAGE_DIR ? ` in ${env.SERVICE_STORAGE_DIR}` : ''}).` +
    `\nThe development bearer token is in SERVICE_HTTP_AUTH_TOKEN (default 'dev-token'). Ctrl-C stops it.\n\n`,
)
const child = spawn(process.execPath, [join(root, 'host', 'dist', 'main.js'), 'start'], {
  cwd: root,
  env,
  stdio: 'inherit',
})
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
