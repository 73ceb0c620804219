/**
 * `@service/provider-sdk/testing`: a pack's provider under the fake host. The pack is read from its
 * package.json as the server reads it, its built provider (build/provider/) is loaded by the server's own
 * loader (digest, confinement, interface version, metadata, health), and calls pass the server's gates.
 * Needs `@service/plugin-provider-host` (a peer dependency; a pack lists it in devDependencies).
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import {
  PACK_PROVIDER_DIR,
  PACK_PROVIDER_MANIFEST,
  type PackDescriptor,
  packDescriptorFromPackageJson,
  type ValidationResponse,
} from '@service/plugin-provider-host'
import { createFakeHost, type FakeHost } from '@service/plugin-provider-host/testing'

export {
  createFakeHost,
  type FakeHost,
  fakeProvider,
  testLicense,
  testPack,
} from '@service/plugin-provider-host/testing'

export interface PackHost {
  pack: PackDescriptor
  /** The fake host itself: gates, license, vocabulary. */
  host: FakeHost
  /** One gated `node.validate` call, exactly as `POST /v1/domains/{domain}/validate` makes it. */
  validate(payload: unknown): Promise<ValidationResponse>
  close(): Promise<void>
}

export interface PackHostOptions {
  /** License modules of the fake deployment; default: the pack's module when it is an enterprise pack. */
  licensedModules?: readonly string[] | null
  requestTimeoutMs?: number
}

/** Opens the pack in `packDir` (a path or a file URL) with its built provider. */
export async function openPackHost(packDir: string | URL, options: PackHostOptions = {}): Promise<PackHost> {
  const dir = typeof packDir === 'string' ? packDir : fileURLToPath(packDir)
  const pack = packDescriptorFromPackageJson(JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')))
  const host = createFakeHost({
    licensedModules: options.licensedModules ?? (pack.enterprise ? [pack.module] : null),
    ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }),
  })
  const providerDir = join(dir, PACK_PROVIDER_DIR)
  await host.registerNative(pack, {
    dir: providerDir,
    manifestFile: join(providerDir, PACK_PROVIDER_MANIFEST),
  })
  return {
    pack,
    host,
    validate: (payload) => host.providers.validate(pack.domain, payload),
    close: () => host.close(),
  }
}
