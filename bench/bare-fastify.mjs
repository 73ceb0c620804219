// The peer for the /health benchmark: a bare Fastify app answering a JSON body of the same size.
import Fastify from 'fastify'

const app = Fastify({ logger: false })
const body = JSON.parse(process.env.BODY ?? '{"status":"ok"}')
app.get('/health', async () => body)
app.get('/health/ready', async () => ({ ready: true }))
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) })
process.on('SIGTERM', () => app.close().then(() => process.exit(0)))
