/**
 * The projector's view of the reference platform: it POSTs a stored write request and reads back the same
 * envelope `POST /v1/ref/writes` answers. The HTTP client uses Node's global fetch.
 */
export interface ReferenceAnswer {
  status: number
  body: unknown
}

export interface ReferenceClient {
  post(request: unknown, signal: AbortSignal): Promise<ReferenceAnswer>
}

/** `endpoint` is the reference's write URL (e.g. `http://reference:8080/v1/ref/writes`). */
export function httpReference(endpoint: string, token: string | null): ReferenceClient {
  return {
    async post(request, signal) {
      const headers: Record<string, string> = { 'content-type': 'application/json' }
      if (token !== null) headers.authorization = `Bearer ${token}`
      const response = await fetch(endpoint, {
        method: 'POST',
        headers,
        body: JSON.stringify(request),
        signal,
      })
      const text = await response.text()
      let body: unknown = null
      try {
        body = JSON.parse(text)
      } catch {
        body = null
      }
      return { status: response.status, body }
    },
  }
}
