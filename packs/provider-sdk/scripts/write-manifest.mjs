#!/usr/bin/env node
// Writes <repo>/build/providers/manifest.json for whichever of the five provider libraries exist there.
// All are required: this is the all-five deployment. Run after the libraries are built.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import {
  CAPABILITIES,
  DOMAINS,
  libraryName,
  providersDir,
  runScript,
  sha256File,
  writeManifestFile,
} from './lib/native-build.mjs'

runScript(() => {
  const providers = DOMAINS.filter((domain) => existsSync(join(providersDir, libraryName(domain)))).map(
    (domain) => ({
      domain,
      library: libraryName(domain),
      sha256: sha256File(join(providersDir, libraryName(domain))),
      required: true,
      capabilities: CAPABILITIES,
    }),
  )
  if (providers.length === 0) {
    process.stderr.write(`⚠ no provider libraries in ${providersDir}; manifest not written\n`)
    return
  }
  const path = join(providersDir, 'manifest.json')
  writeManifestFile(path, providers)
  process.stdout.write(`wrote ${path} (${providers.map((provider) => provider.domain).join(', ')})\n`)
})
