#!/usr/bin/env node
// Builds the host-test providers into <repo>/build/test-providers/ and writes one manifest per provider.
//
//   libservice_test_<kind>_provider.so   (domain cti)   kind: noop | slow | bad_abi | unhealthy |
//   manifest.<kind>.json                                        no_capability | failing
//
// Usage: node packs/provider-sdk/scripts/build-test-providers.mjs [--domain <d>]...
// Each extra --domain also builds libservice_test_<kind>_<d>_provider.so and manifest.<kind>.<d>.json.
import { join } from 'node:path'
import {
  buildTestProvider,
  CAPABILITIES,
  DOMAINS,
  requireCompilerOrSkip,
  runScript,
  sha256File,
  TEST_PROVIDER_KINDS,
  testProviderName,
  testProvidersDir,
  writeManifestFile,
} from './lib/native-build.mjs'

function domainsFromArgs(args) {
  const domains = ['cti']
  for (let i = 0; i < args.length; i++) {
    if (args[i] !== '--domain' || !DOMAINS.includes(args[i + 1] ?? '')) {
      throw new Error(`usage: build-test-providers.mjs [--domain <${DOMAINS.join('|')}>]...`)
    }
    if (!domains.includes(args[i + 1])) domains.push(args[i + 1])
    i++
  }
  return domains
}

runScript(() => {
  const domains = domainsFromArgs(process.argv.slice(2))
  if (!requireCompilerOrSkip('test providers')) return
  for (const domain of domains) {
    for (const kind of TEST_PROVIDER_KINDS) {
      const library = buildTestProvider(kind, { domain })
      const suffix = domain === 'cti' ? kind : `${kind}.${domain}`
      writeManifestFile(join(testProvidersDir, `manifest.${suffix}.json`), [
        {
          domain,
          library: testProviderName(kind, domain),
          sha256: sha256File(library),
          required: true,
          capabilities: CAPABILITIES,
        },
      ])
    }
  }
})
