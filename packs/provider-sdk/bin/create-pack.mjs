#!/usr/bin/env node
// create-pack DIR [--name PACKAGE] [--domain DOMAIN]: writes a new domain pack into DIR (which must be
// absent or empty): package.json with the "service" metadata and an install script that builds the
// provider, provider/pack_provider.c with one rule, RULES.md, and a test against the fake host.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { basename, dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { DOMAINS, runScript } from '../scripts/lib/native-build.mjs'

const ENTERPRISE = ['cti', 'fimi', 'crisis']
const PACKAGE_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/[a-z0-9][a-z0-9._~-]*|service-pack-[a-z0-9][a-z0-9._~-]*)$/
const USAGE = `usage: create-pack DIR [--name @scope/service-pack-NAME | service-pack-NAME] [--domain ${DOMAINS.join('|')}]`

const sdkDir = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const templateDir = join(sdkDir, 'templates', 'pack')
const sdkVersion = JSON.parse(readFileSync(join(sdkDir, 'package.json'), 'utf8')).version

/** `@acme/service-pack-research` -> `ACME_RESEARCH`: the prefix of the pack's issue codes. */
const codePrefix = (name) =>
  name
    .replace(/^@/, '')
    .replace(/service-pack-/, '')
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part !== '')
    .join('_')
    .toUpperCase()

function packageJson(name, domain) {
  return {
    name,
    version: '0.1.0',
    description: `A ${domain} domain pack for service-http-server`,
    type: 'module',
    license: 'UNLICENSED',
    engines: { node: '>=20.19' },
    files: ['provider', 'RULES.md'],
    scripts: {
      // Runs where the pack is installed: the provider is compiled there, and its digest pinned.
      install: 'service-provider-build',
      build: 'service-provider-build',
      test: 'service-provider-build && node --test',
    },
    dependencies: { '@service/provider-sdk': `^${sdkVersion}` },
    devDependencies: { '@service/plugin-provider-host': `^${sdkVersion}` },
    service: {
      domain,
      module: domain,
      enterprise: ENTERPRISE.includes(domain),
      capabilities: [{ name: 'node.validate', version: '1' }],
      vocabulary: { nodes: ['Note'], relationships: ['References'] },
    },
  }
}

runScript(() => {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { name: { type: 'string' }, domain: { type: 'string', default: 'research' } },
  })
  const [target] = positionals
  if (target === undefined) throw new Error(USAGE)
  const dir = resolve(target)
  const name =
    values.name ??
    `service-pack-${basename(dir)
      .toLowerCase()
      .replace(/[^a-z0-9._~-]+/g, '-')}`
  if (!PACKAGE_NAME.test(name))
    throw new Error(`'${name}' is not a pack package name (@scope/name or service-pack-<name>)\n${USAGE}`)
  const domain = values.domain
  if (!DOMAINS.includes(domain)) throw new Error(`--domain must be one of ${DOMAINS.join(', ')}\n${USAGE}`)
  if (existsSync(dir) && readdirSync(dir).length > 0) throw new Error(`${dir} exists and is not empty`)

  const fill = (text) =>
    text
      .replaceAll('{{NAME}}', name)
      .replaceAll('{{DOMAIN}}', domain)
      .replaceAll('{{PREFIX}}', codePrefix(name))
      .replaceAll('{{PROVIDER_ID}}', name.replace(/^@/, '').replace('/', '.'))
  const files = {
    'package.json': `${JSON.stringify(packageJson(name, domain), null, 2)}\n`,
    'provider/pack_provider.c': fill(readFileSync(join(templateDir, 'provider', 'pack_provider.c'), 'utf8')),
    'RULES.md': fill(readFileSync(join(templateDir, 'RULES.md'), 'utf8')),
    'test/pack.test.mjs': fill(readFileSync(join(templateDir, 'test', 'pack.test.mjs'), 'utf8')),
    // Stored without its dot: npm leaves .gitignore files out of a package.
    '.gitignore': readFileSync(join(templateDir, 'gitignore'), 'utf8'),
  }
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  const shown = relative(process.cwd(), dir) || '.'
  process.stdout.write(
    [
      `created ${name} (${domain} pack) in ${dir}`,
      '',
      `  cd ${shown}`,
      '  npm install        # builds build/provider/ from provider/pack_provider.c and pins its digest',
      '  npm test           # the provider through the fake host',
      '  npm pack           # the package a deployment installs',
      '',
      `In the deployment: npm install <the .tgz>, and name it in SERVICE_ENABLED_PACKS (for example`,
      `  SERVICE_ENABLED_PACKS=${['cti', 'fimi', 'crisis', 'medical', 'research'].filter((d) => d !== domain).join(',')},${name})`,
      '',
    ].join('\n'),
  )
})
