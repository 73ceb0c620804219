// A lean HTTP/1.1 client for latency figures: one keep-alive connection, no WHATWG streams. `fetch` costs the
// load generator about a millisecond a request, and on a 2-core machine that CPU is taken from the server it
// measures; this client's cost is close to a plain socket write and read.
import { Agent, request } from 'node:http'

/** `post(path, body)` and `get(path)` against `baseUrl`, answering `{ status, body }` (body parsed as JSON). */
export function httpClient(baseUrl, headers = {}) {
  const url = new URL(baseUrl)
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const send = (method, path, payload) =>
    new Promise((resolve, reject) => {
      const req = request(
        {
          agent,
          host: url.hostname,
          port: url.port,
          method,
          path,
          headers:
            payload === undefined
              ? headers
              : {
                  ...headers,
                  'content-type': 'application/json',
                  'content-length': Buffer.byteLength(payload),
                },
        },
        (res) => {
          const chunks = []
          res.on('data', (c) => chunks.push(c))
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8')
            try {
              resolve({ status: res.statusCode, body: text === '' ? null : JSON.parse(text) })
            } catch (error) {
              reject(error)
            }
          })
          res.on('error', reject)
        },
      )
      req.on('error', reject)
      req.end(payload)
    })
  return {
    post: (path, body) => send('POST', path, JSON.stringify(body)),
    get: (path) => send('GET', path, undefined),
    close: () => agent.destroy(),
  }
}
