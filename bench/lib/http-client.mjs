// A lean HTTP/1.1 client for latency figures: undici's `request` on one keep-alive connection. `fetch` costs
// the load generator about a millisecond a request, and on a 2-core machine that CPU is taken from the server
// it measures (bench/ref.mjs uses the same client for its replay figure).
import { Pool } from 'undici'

/** `post(path, body)` and `get(path)` against `baseUrl`, answering `{ status, body }` (body parsed as JSON). */
export function httpClient(baseUrl, headers = {}) {
  const pool = new Pool(baseUrl, { connections: 1, pipelining: 1 })
  const send = async (method, path, body) => {
    const res = await pool.request({
      method,
      path,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body,
    })
    const text = await res.body.text()
    return { status: res.statusCode, body: text === '' ? null : JSON.parse(text) }
  }
  return {
    post: (path, body) => send('POST', path, JSON.stringify(body)),
    get: (path) => send('GET', path, undefined),
    close: () => pool.close(),
  }
}
