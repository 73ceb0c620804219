#!/usr/bin/env node
// Builds the five providers, the test providers and the C test driver, then runs the driver.
// Usage: node packs/provider-sdk/scripts/test-providers.mjs [--sanitize]
//   --sanitize  builds everything with -fsanitize=address,undefined under packs/provider-sdk/build/sanitize/
//               (the shipped libraries in build/providers are not touched).
import { spawnSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import {
  buildDomainProvider,
  buildTestProvider,
  compile,
  DOMAINS,
  packsDir,
  providersDir,
  requireCompilerOrSkip,
  runScript,
  scratchDir,
  sdkDir,
  sdkHeaders,
  sdkInclude,
  TEST_PROVIDER_KINDS,
  testProvidersDir,
} from './lib/native-build.mjs'

const sanitizerFlags = [
  '-O1',
  '-g',
  '-fno-omit-frame-pointer',
  '-fsanitize=address,undefined',
  '-fno-sanitize-recover=all',
]

/**
 * Every node label and relationship a pack's package.json declares must be known to its C provider:
 * "domain<TAB>payload<TAB>code the response must not contain". Medical reads unknown labels as Evidence
 * without an issue, so only the four other domains can be checked this way.
 */
function vocabularyLines() {
  const lines = []
  for (const domain of DOMAINS.filter((name) => name !== 'medical')) {
    const { vocabulary } = JSON.parse(readFileSync(join(packsDir, domain, 'package.json'), 'utf8')).service
    const prefix = domain.toUpperCase()
    for (const label of vocabulary.nodes) {
      const unknown = domain === 'research' ? 'RESEARCH_NODE_TYPE_REQUIRED' : `${prefix}_NODE_TYPE_`
      lines.push(`${domain}\t${JSON.stringify({ labels: [label] })}\t${unknown}`)
    }
    if (domain === 'research') continue // research validates no relationship records
    for (const relationship of vocabulary.relationships) {
      const record = { relationship_type: relationship, source_labels: ['?'], target_labels: ['?'] }
      lines.push(`${domain}\t${JSON.stringify(record)}\t${prefix}_RELATIONSHIP_TYPE_`)
    }
  }
  return lines
}

runScript(() => {
  const sanitize = process.argv.includes('--sanitize')
  if (!requireCompilerOrSkip('provider tests')) return
  const outRoot = sanitize ? join(scratchDir, 'sanitize') : null
  const extra = sanitize ? sanitizerFlags : []
  const libraries = outRoot ? join(outRoot, 'providers') : providersDir
  const testLibraries = outRoot ? join(outRoot, 'test-providers') : testProvidersDir

  for (const domain of DOMAINS) buildDomainProvider(domain, { outDir: libraries, extra })
  for (const kind of TEST_PROVIDER_KINDS) buildTestProvider(kind, { outDir: testLibraries, extra })

  const driver = join(outRoot ?? join(scratchDir, 'tests'), 'provider_test')
  const research = join(packsDir, 'research', 'provider')
  compile({
    sources: [
      join(sdkDir, 'test', 'provider_test.c'),
      join(sdkDir, 'native', 'json_text.c'),
      join(sdkDir, 'native', 'json_reader.c'),
      join(sdkDir, 'native', 'json_access.c'),
      join(research, 'identifiers.c'),
    ],
    headers: [...sdkHeaders(), join(research, 'identifiers.h')],
    includes: [sdkInclude],
    extra,
    libs: ['-ldl', '-pthread'],
    output: driver,
    shared: false,
  })

  const vocabularyCases = join(dirname(driver), 'vocabulary-cases.tsv')
  writeFileSync(vocabularyCases, vocabularyLines().join('\n'))

  process.stdout.write(`\n▶ ${driver}\n`)
  const result = spawnSync(driver, [libraries, testLibraries, vocabularyCases], {
    stdio: 'inherit',
    env: { ...process.env, ASAN_OPTIONS: 'detect_leaks=1', UBSAN_OPTIONS: 'print_stacktrace=1' },
  })
  if (result.status !== 0) {
    throw new Error(`provider tests failed (exit ${result.status ?? result.signal})`)
  }
})
