import { Counter, Gauge, type Registry } from 'prom-client'
import type { ListenerEvents } from './listener.js'

/** Bolt metrics (connections, messages by type, failures by Neo4j code, bytes) as listener events. */
export function boltMetrics(registry: Registry, connections: () => number): ListenerEvents {
  const registers = [registry]
  new Gauge({
    name: 'service_bolt_connections',
    help: 'Open Bolt connections.',
    registers,
    collect() {
      this.set(connections())
    },
  })
  const opened = new Counter({
    name: 'service_bolt_connections_total',
    help: 'Bolt connections accepted (outcome accepted) or refused past SERVICE_BOLT_MAX_CONNECTIONS.',
    labelNames: ['outcome'],
    registers,
  })
  const messages = new Counter({
    name: 'service_bolt_messages_total',
    help: 'Bolt request messages received, by message type.',
    labelNames: ['message'],
    registers,
  })
  const failures = new Counter({
    name: 'service_bolt_failures_total',
    help: 'Bolt FAILURE responses, by Neo4j status code.',
    labelNames: ['code'],
    registers,
  })
  const bytes = new Counter({
    name: 'service_bolt_bytes_total',
    help: 'Bytes read from (in) and written to (out) Bolt connections.',
    labelNames: ['direction'],
    registers,
  })
  const streams = new Gauge({
    name: 'service_bolt_open_streams',
    help: 'Streamed Bolt results open (computed as the client pulls; closed when done, discarded or reset).',
    registers,
  })
  const streamed = new Counter({
    name: 'service_bolt_streamed_records_total',
    help: 'Records of streamed Bolt results computed and sent.',
    registers,
  })
  opened.inc({ outcome: 'accepted' }, 0)
  bytes.inc({ direction: 'in' }, 0)
  bytes.inc({ direction: 'out' }, 0)
  return {
    opened: () => opened.inc({ outcome: 'accepted' }),
    refused: () => opened.inc({ outcome: 'refused' }),
    message: (name) => messages.inc({ message: name }),
    failure: (code) => failures.inc({ code }),
    bytes: (direction, count) => bytes.inc({ direction }, count),
    stream: (open) => (open ? streams.inc() : streams.dec()),
    streamed: (records) => streamed.inc(records),
  }
}
