// Bundles the explorer page (web/) into dist/web with esbuild: one script, one stylesheet, the HTML shell.
// Everything the page needs is in those files (no CDN, nothing fetched at run time). Type-checking is tsc's
// job (web/tsconfig.json is part of the root `tsc -b`); this only bundles.
import { copyFileSync, mkdirSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const here = dirname(fileURLToPath(import.meta.url))
const web = join(here, '..', 'web')
const out = join(here, '..', 'dist', 'web')

rmSync(out, { recursive: true, force: true })
mkdirSync(out, { recursive: true })
const started = Date.now()
await build({
  entryPoints: { explorer: join(web, 'src', 'main.ts'), 'explorer-style': join(web, 'explorer.css') },
  outdir: out,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome120', 'firefox120', 'safari17'],
  minify: true,
  sourcemap: 'linked',
  legalComments: 'eof',
  logLevel: 'warning',
  // graphology and sigma read `process.env.NODE_ENV` nowhere we need; keep the bundle free of Node shims.
  define: { 'process.env.NODE_ENV': '"production"' },
})
copyFileSync(join(web, 'index.html'), join(out, 'index.html'))
process.stdout.write(`explorer page built into ${out} in ${Date.now() - started} ms\n`)
