#!/usr/bin/env node
import { runScript } from '../scripts/lib/native-build.mjs'
// service-provider-build [PACK_DIR]: builds the pack in PACK_DIR (default: the working directory) into
// build/provider/ and writes its manifest. A pack's "install" script runs it, so the provider is compiled
// from source on the machine that installs the pack.
import { buildPackProvider } from '../scripts/lib/pack-build.mjs'

runScript(() => {
  const { name, domain, library, manifest, built } = buildPackProvider(process.argv[2] ?? process.cwd())
  process.stdout.write(
    `${built ? 'built' : 'up to date'}: ${name} ${domain} provider ${library}\nmanifest: ${manifest}\n`,
  )
})
