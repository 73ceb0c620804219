#!/usr/bin/env node
// Builds one domain provider (or --all five) into <repo>/build/providers/libservice_<domain>_provider.so.
// Usage: node packs/provider-sdk/scripts/build-provider.mjs <cti|fimi|crisis|medical|research|--all>
import { buildDomainProvider, DOMAINS, requireCompilerOrSkip, runScript } from './lib/native-build.mjs'

runScript(() => {
  const [target] = process.argv.slice(2)
  if (!target) throw new Error(`usage: build-provider.mjs <${DOMAINS.join('|')}|--all>`)
  const domains = target === '--all' ? DOMAINS : [target]
  if (!requireCompilerOrSkip(`provider ${domains.join(', ')}`)) return
  for (const domain of domains) buildDomainProvider(domain)
})
