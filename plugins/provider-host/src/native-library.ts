import type { JsExternal } from 'ffi-rs'

/**
 * Binding to one provider library through ffi-rs (C ABI v1, flat exports; see
 * packs/provider-sdk/include/service_domain_provider_v1.h). Output buffers are provider-owned: the host
 * passes a zeroed 16-byte `{ptr,len}` struct that the call fills in place, copies `len` bytes out through
 * `buffer_copy` and releases the struct once through the provider's own `free_buffer`, on every path.
 */

type Ffi = typeof import('ffi-rs')

/** Status codes of ABI v1. */
export const PROVIDER_STATUS = [
  'OK',
  'INVALID_ARGUMENT',
  'INVALID_REQUEST',
  'UNSUPPORTED_CAPABILITY',
  'PROVIDER_ERROR',
  'RESPONSE_TOO_LARGE',
] as const

export const statusName = (status: number): string => PROVIDER_STATUS[status] ?? `unknown status ${status}`

export const SYMBOL = {
  abiVersion: 'service_domain_provider_v1_abi_version',
  metadata: 'service_domain_provider_v1_metadata',
  create: 'service_domain_provider_v1_create',
  invoke: 'service_domain_provider_v1_invoke',
  health: 'service_domain_provider_v1_health',
  destroy: 'service_domain_provider_v1_destroy',
  bufferCopy: 'service_domain_provider_v1_buffer_copy',
  freeBuffer: 'service_domain_provider_v1_free_buffer',
} as const

/** A call that did not produce a usable reply; the message says why, without the reply's content. */
export class ProviderCallFault extends Error {
  override readonly name = 'ProviderCallFault'
}

/** `sizeof(service_domain_provider_buffer_v1)` on LP64: `uint8_t *ptr` at 0, `size_t len` at 8. */
const BUFFER_STRUCT_BYTES = 16

export type ProviderHandle = JsExternal

export interface NativeLibrary {
  readonly path: string
  abiVersion(): number
  /** Calls `metadata` with an empty host context; the reply is bounded by `limit` bytes. */
  metadata(limit: number): Buffer
  /** Null when the provider refused the configuration. */
  create(config: Buffer): ProviderHandle | null
  health(handle: ProviderHandle, limit: number): Buffer
  /** Runs off the event loop (ffi-rs `runInNewThread`); resolves once the output buffer is freed. */
  invoke(handle: ProviderHandle, request: Buffer, limit: number): Promise<Buffer>
  destroy(handle: ProviderHandle): void
  /** Unloads the library; call only after every handle is destroyed and no call is running. */
  close(): void
}

let ffiModule: Promise<Ffi> | undefined
/** ffi-rs is loaded only when a manifest is configured, so in-process (fake) providers need no native addon. */
const loadFfi = (): Promise<Ffi> => {
  ffiModule ??= import('ffi-rs')
  return ffiModule
}

let nextKey = 0

/** Opens a library by its canonical path. Throws ffi-rs's own error (dlopen's message) on failure. */
export async function openNativeLibrary(path: string): Promise<NativeLibrary> {
  const ffi = await loadFfi()
  const { DataType } = ffi
  const library = `service-domain-provider-${nextKey++}`
  ffi.open({ library, path })
  let closed = false

  // size_t is passed as DataType.U64 (a JS number; exact up to 2^53, far above any buffer we pass).
  const call = <T>(funcName: string, retType: number, paramsType: number[], paramsValue: unknown[]): T =>
    ffi.load({ library, funcName, retType, paramsType, paramsValue } as never) as T

  const freeOut = (out: Buffer): void => {
    call<void>(SYMBOL.freeBuffer, DataType.Void, [DataType.U8Array], [out])
  }

  /** Copies the reply out of `out` (bounded by `limit`), then frees it whatever happens. */
  const takeReply = (status: number, out: Buffer, limit: number, what: string): Buffer => {
    try {
      if (status !== 0)
        throw new ProviderCallFault(`${what} returned status ${status} (${statusName(status)})`)
      const length = out.readBigUInt64LE(8)
      if (length === 0n) throw new ProviderCallFault(`${what} returned an empty reply`)
      if (length > BigInt(limit))
        throw new ProviderCallFault(`${what} reply of ${length} bytes exceeds the limit of ${limit} bytes`)
      const bytes = Buffer.alloc(Number(length))
      const copied = call<number>(
        SYMBOL.bufferCopy,
        DataType.U64,
        [DataType.U8Array, DataType.U8Array, DataType.U64],
        [out, bytes, bytes.length],
      )
      if (copied !== bytes.length)
        throw new ProviderCallFault(`${what}: buffer_copy copied ${copied} of ${bytes.length} bytes`)
      return bytes
    } finally {
      freeOut(out)
    }
  }

  return {
    path,
    abiVersion: () => call<number>(SYMBOL.abiVersion, DataType.U32, [], []),
    metadata(limit) {
      const out = Buffer.alloc(BUFFER_STRUCT_BYTES)
      const context = Buffer.alloc(0)
      const status = call<number>(
        SYMBOL.metadata,
        DataType.I32,
        [DataType.U8Array, DataType.U64, DataType.U8Array],
        [context, 0, out],
      )
      return takeReply(status, out, limit, 'metadata')
    },
    create(config) {
      const handle = call<JsExternal>(
        SYMBOL.create,
        DataType.External,
        [DataType.U8Array, DataType.U64],
        [config, config.length],
      )
      return ffi.isNullPointer(handle) ? null : handle
    },
    health(handle, limit) {
      const out = Buffer.alloc(BUFFER_STRUCT_BYTES)
      const status = call<number>(
        SYMBOL.health,
        DataType.I32,
        [DataType.External, DataType.U8Array],
        [handle, out],
      )
      return takeReply(status, out, limit, 'health')
    },
    async invoke(handle, request, limit) {
      const out = Buffer.alloc(BUFFER_STRUCT_BYTES)
      let status: number
      try {
        status = await (ffi.load({
          library,
          funcName: SYMBOL.invoke,
          retType: DataType.I32,
          paramsType: [DataType.External, DataType.U8Array, DataType.U64, DataType.U8Array],
          paramsValue: [handle, request, request.length, out],
          runInNewThread: true,
        }) as Promise<number>)
      } catch (error) {
        freeOut(out)
        throw new ProviderCallFault(`invoke could not be called: ${(error as Error).message}`)
      }
      return takeReply(status, out, limit, 'invoke')
    },
    destroy(handle) {
      call<void>(SYMBOL.destroy, DataType.Void, [DataType.External], [handle])
    },
    close() {
      if (closed) return
      closed = true
      ffi.close(library)
    },
  }
}
