// Compiles the native domain providers with the machine's C compiler (`cc`, or $CC). Node built-ins only.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const sdkDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const packsDir = resolve(sdkDir, '..')
export const repoRoot = resolve(packsDir, '..')
export const buildDir = join(repoRoot, 'build')
export const providersDir = join(buildDir, 'providers')
export const testProvidersDir = join(buildDir, 'test-providers')
// Scratch output (build stamps, the test driver, sanitizer builds, fuzzing) stays inside this package,
// where .gitignore's packs/*/build/ already covers it.
export const scratchDir = join(sdkDir, 'build')

export const DOMAINS = ['cti', 'fimi', 'crisis', 'medical', 'research']
export const CAPABILITIES = [{ name: 'node.validate', version: '1' }]

export const libraryName = (domain) => `libservice_${domain}_provider.so`

// -Werror keeps warnings from reaching a shipped library; the rest is the usual hardening set.
export const compileFlags = [
  '-std=c11',
  '-O2',
  '-fPIC',
  '-Wall',
  '-Wextra',
  '-Werror',
  '-Wshadow',
  '-Wconversion',
  '-Wno-sign-conversion',
  '-fvisibility=hidden',
  '-U_FORTIFY_SOURCE',
  '-D_FORTIFY_SOURCE=2',
  '-fstack-protector-strong',
]

// Read-only relocations, no executable stack; libraries also bind their own symbols locally (-Bsymbolic),
// so a same-named symbol elsewhere in the host process can never be interposed on internal calls.
const linuxLinkFlags = ['-Wl,-z,relro', '-Wl,-z,now', '-Wl,-z,noexecstack', '-Wl,--as-needed']
export const linkFlags = (shared) =>
  process.platform === 'linux' ? [...(shared ? ['-Wl,-Bsymbolic'] : []), ...linuxLinkFlags] : []

export const compiler = () => process.env.CC || 'cc'

export function compilerAvailable() {
  const result = spawnSync(compiler(), ['--version'], { encoding: 'utf8' })
  return result.status === 0
}

/** When no compiler exists: fail under CI or SERVICE_NATIVE_REQUIRED=1, otherwise warn and skip. */
export function requireCompilerOrSkip(what) {
  if (compilerAvailable()) return true
  const message = `no C compiler (${compiler()}) found; ${what} not built`
  if (process.env.CI || process.env.SERVICE_NATIVE_REQUIRED === '1') {
    process.stderr.write(`✖ ${message}\n`)
    process.exit(1)
  }
  process.stderr.write(`⚠ ${message} (set CC, or install gcc/clang)\n`)
  return false
}

export const listFiles = (dir, extensions) =>
  existsSync(dir)
    ? readdirSync(dir)
        .filter((name) => extensions.some((extension) => name.endsWith(extension)))
        .sort()
        .map((name) => join(dir, name))
    : []

export const sdkSources = () => listFiles(join(sdkDir, 'native'), ['.c'])
export const sdkHeaders = () => listFiles(join(sdkDir, 'include'), ['.h'])
export const sdkInclude = join(sdkDir, 'include')

/** Sources and include directories of one domain's provider (SDK included). */
export function domainProvider(domain) {
  if (!DOMAINS.includes(domain))
    throw new Error(`unknown domain "${domain}" (expected one of ${DOMAINS.join(', ')})`)
  const dir = join(packsDir, domain, 'provider')
  return {
    sources: [...sdkSources(), ...listFiles(dir, ['.c'])],
    headers: [...sdkHeaders(), ...listFiles(dir, ['.h'])],
    includes: [sdkInclude, dir],
  }
}

/**
 * Compiles sources into `output` unless its stamp shows the same compiler, arguments and input
 * contents. The library is written to a temporary name and renamed, so a reader never sees half a file
 * and parallel builds of different libraries do not interfere.
 */
export function compile({
  sources,
  headers = [],
  includes = [],
  defines = [],
  extra = [],
  libs = [],
  output,
  shared = true,
  stampDir = join(scratchDir, 'stamps'),
}) {
  const args = [
    ...compileFlags,
    ...(shared
      ? ['-shared', ...(process.platform === 'linux' ? [`-Wl,-soname,${basename(output)}`] : [])]
      : []),
    ...extra,
    ...includes.map((dir) => `-I${dir}`),
    ...defines.map((define) => `-D${define}`),
    ...sources,
    ...linkFlags(shared),
    ...libs,
  ]
  const hash = createHash('sha256').update(compiler()).update('\0').update(JSON.stringify(args))
  for (const file of [...sources, ...headers].sort())
    hash.update(file).update('\0').update(readFileSync(file))
  // Stamps live apart from the libraries so the trusted provider directory holds only what is deployed.
  const stamp = join(stampDir, `${createHash('sha256').update(output).digest('hex').slice(0, 16)}.stamp`)
  const digest = hash.digest('hex')
  if (existsSync(output) && existsSync(stamp) && readFileSync(stamp, 'utf8') === digest) return false
  mkdirSync(dirname(output), { recursive: true })
  const temporary = `${output}.tmp-${process.pid}`
  const result = spawnSync(compiler(), [...args, '-o', temporary], { stdio: 'inherit' })
  if (result.status !== 0) {
    rmSync(temporary, { force: true })
    throw new Error(
      `${compiler()} failed building ${basename(output)} (exit ${result.status ?? result.signal})`,
    )
  }
  renameSync(temporary, output)
  mkdirSync(dirname(stamp), { recursive: true })
  writeFileSync(stamp, digest)
  return true
}

export function buildDomainProvider(domain, { outDir = providersDir, extra = [] } = {}) {
  const { sources, headers, includes } = domainProvider(domain)
  const output = join(outDir, libraryName(domain))
  const built = compile({ sources, headers, includes, extra, output })
  process.stdout.write(`${built ? 'built' : 'up to date'}: ${output}\n`)
  return output
}

export const TEST_PROVIDER_KINDS = ['noop', 'slow', 'bad_abi', 'unhealthy', 'no_capability', 'failing']

export const testProviderName = (kind, domain = 'cti') =>
  domain === 'cti' ? `libservice_test_${kind}_provider.so` : `libservice_test_${kind}_${domain}_provider.so`

export function buildTestProvider(kind, { domain = 'cti', outDir = testProvidersDir, extra = [] } = {}) {
  if (!TEST_PROVIDER_KINDS.includes(kind)) throw new Error(`unknown test provider "${kind}"`)
  const defines = [
    `TEST_PROVIDER_${kind.toUpperCase()}`,
    `TEST_PROVIDER_KIND="${kind}"`,
    `TEST_PROVIDER_DOMAIN="${domain}"`,
    ...(kind === 'bad_abi' ? ['SDP_REPORTED_ABI_MAJOR=2'] : []),
  ]
  const output = join(outDir, testProviderName(kind, domain))
  const built = compile({
    sources: [...sdkSources(), join(sdkDir, 'test-providers', 'test_provider.c')],
    headers: sdkHeaders(),
    includes: [sdkInclude],
    defines,
    extra,
    output,
  })
  process.stdout.write(`${built ? 'built' : 'up to date'}: ${output}\n`)
  return output
}

export const sha256File = (path) => createHash('sha256').update(readFileSync(path)).digest('hex')

/** Writes a manifest (FACTS section 2 format) atomically. */
export function writeManifestFile(path, providers) {
  const manifest = { schema_version: '1', providers }
  const temporary = `${path}.tmp-${process.pid}`
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(temporary, `${JSON.stringify(manifest, null, 2)}\n`)
  renameSync(temporary, path)
}

/** Runs `main`, turning a thrown error into a one-line message and exit code 1. */
export function runScript(main) {
  try {
    main()
  } catch (error) {
    process.stderr.write(`✖ ${error instanceof Error ? error.message : String(error)}\n`)
    process.exit(1)
  }
}
