import { EngineError } from '../../errors.js'
import type { EmbeddingProvider } from './provider.js'

/**
 * An OpenAI-compatible embeddings endpoint: `POST <url>` with `{model, input: string[]}`, answered by
 * `{data: [{index, embedding: number[]}]}`. Works with OpenAI, Ollama, vLLM, LocalAI, llama.cpp server.
 */
export interface HttpEmbeddingOptions {
  /** Full endpoint URL, e.g. `http://127.0.0.1:11434/v1/embeddings`. */
  url: string
  model: string
  apiKey?: string | undefined
  timeoutMs?: number | undefined
  /** Texts per request. */
  batchSize?: number | undefined
}

/** Reads `SERVICE_SEED_EMBEDDING_URL`, `_MODEL`, `_API_KEY`, `_TIMEOUT_MS`, `_BATCH_SIZE`; null when no URL. */
export function httpEmbeddingOptionsFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): HttpEmbeddingOptions | null {
  const url = env.SERVICE_SEED_EMBEDDING_URL?.trim()
  if (!url) return null
  const int = (name: string) => {
    const raw = env[name]?.trim()
    if (!raw) return undefined
    const n = Number(raw)
    if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer`)
    return n
  }
  return {
    url,
    model: env.SERVICE_SEED_EMBEDDING_MODEL?.trim() || 'default',
    apiKey: env.SERVICE_SEED_EMBEDDING_API_KEY?.trim() || undefined,
    timeoutMs: int('SERVICE_SEED_EMBEDDING_TIMEOUT_MS'),
    batchSize: int('SERVICE_SEED_EMBEDDING_BATCH_SIZE'),
  }
}

const unavailable = (message: string) => new EngineError('SEMANTIC_PROVIDER_UNAVAILABLE', message)

async function post(
  options: HttpEmbeddingOptions,
  input: readonly string[],
  signal: AbortSignal | undefined,
): Promise<number[][]> {
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 10_000)
  let response: Response
  try {
    response = await fetch(options.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
      },
      body: JSON.stringify({ model: options.model, input }),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    })
  } catch (error) {
    throw unavailable(`embedding endpoint unreachable: ${(error as Error).message}`)
  }
  if (!response.ok) throw unavailable(`embedding endpoint answered HTTP ${response.status}`)
  const body = (await response.json().catch(() => null)) as {
    data?: { index?: number; embedding?: unknown }[]
  } | null
  const data = body?.data
  if (!Array.isArray(data) || data.length !== input.length)
    throw unavailable('embedding endpoint answered without one embedding per input')
  const out: number[][] = new Array(input.length)
  data.forEach((item, i) => {
    const e = item.embedding
    if (!Array.isArray(e) || !e.every((x) => typeof x === 'number'))
      throw unavailable('embedding endpoint answered a non-numeric embedding')
    out[typeof item.index === 'number' ? item.index : i] = e as number[]
  })
  return out
}

export class HttpEmbeddingProvider implements EmbeddingProvider {
  readonly id: string

  private constructor(
    private readonly options: HttpEmbeddingOptions,
    readonly dimensions: number,
  ) {
    this.id = `http:${options.model}`
  }

  /** Probes the endpoint once to learn the dimension; throws SEMANTIC_PROVIDER_UNAVAILABLE when it cannot. */
  static async connect(options: HttpEmbeddingOptions): Promise<HttpEmbeddingProvider> {
    const [probe] = await post(options, ['dimension probe'], undefined)
    if (probe === undefined || probe.length === 0)
      throw unavailable('embedding endpoint answered an empty vector')
    return new HttpEmbeddingProvider(options, probe.length)
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const out: Float32Array[] = []
    const batch = this.options.batchSize ?? 64
    for (let i = 0; i < texts.length; i += batch) {
      for (const e of await post(this.options, texts.slice(i, i + batch), signal)) {
        if (e.length !== this.dimensions)
          throw unavailable(`embedding endpoint changed dimension (${e.length} != ${this.dimensions})`)
        out.push(Float32Array.from(e))
      }
    }
    return out
  }
}
