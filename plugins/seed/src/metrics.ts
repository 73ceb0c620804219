import { Gauge, type Registry } from 'prom-client'

/** Seed search's background indexing: what is left, read at each scrape. */
export function seedMetrics(registry: Registry, backlog: () => { index: number; embeddings: number }): void {
  const registers = [registry]
  new Gauge({
    name: 'service_seed_index_backlog',
    help: 'Nodes and relationships seed search has not indexed yet (after a restart or a long run of writes).',
    registers,
    collect() {
      this.set(backlog().index)
    },
  })
  new Gauge({
    name: 'service_seed_embedding_backlog',
    help: 'Indexed nodes seed search has not embedded yet (after the embedding model arrived).',
    registers,
    collect() {
      this.set(backlog().embeddings)
    },
  })
}
