/**
 * The memory contract's shared conformance fixture (`memory-v1-conformance.json`) checked through any door:
 * the embedded `engine.memory.execute` or POST /v1/memory/operations. A door sends one request in its own
 * trusted context; `hidden`, when given, is a door onto another workspace of the same service. Returns the
 * problems found (empty when the door conforms), so each test runner asserts in its own way.
 */

export interface ConformanceFixture {
  contract_version: string
  operations: {
    operation: string
    mutation: boolean | 'apply_only'
    required: string[]
    bounded_by?: string[]
  }[]
  invariants: string[]
}

// biome-ignore lint/suspicious/noExplicitAny: response bodies are walked as JSON
export type DoorAnswer = { ok: true; body: any } | { ok: false; code: string; message: string }

export interface MemoryDoor {
  send(request: unknown): Promise<DoorAnswer>
}

/** Fields the spec makes optional although the fixture lists them (spec: "an optional application identity key"). */
const SPEC_OPTIONAL: Readonly<Record<string, readonly string[]>> = { remember: ['identity_key'] }

const TRUSTED_FIELDS = [
  'workspace_id',
  'actor_id',
  'agent_id',
  'session_id',
  'permissions',
  'correlation_id',
  'request_id',
]

let sequence = 0
const key = () => `conformance-${Date.now()}-${++sequence}`

export async function checkMemoryConformance(
  fixture: ConformanceFixture,
  door: MemoryDoor,
  hidden?: MemoryDoor,
): Promise<string[]> {
  const problems: string[] = []
  const send = (operation: string, input: unknown, idempotency_key: string | null = key()) =>
    door.send({
      contract_version: fixture.contract_version,
      operation,
      input,
      ...(idempotency_key ? { idempotency_key } : {}),
    })
  const expectOk = async (what: string, answer: Promise<DoorAnswer>) => {
    const a = await answer
    if (!a.ok) problems.push(`${what}: expected success, got ${a.code} (${a.message})`)
    return a.ok ? a.body : null
  }
  const expectCode = async (what: string, code: string, answer: Promise<DoorAnswer>) => {
    const a = await answer
    if (a.ok || a.code !== code) problems.push(`${what}: expected ${code}, got ${a.ok ? 'success' : a.code}`)
    return a
  }
  if (fixture.contract_version !== 'v1') problems.push(`fixture contract_version ${fixture.contract_version}`)

  const remember = (text: string) => ({
    identity_key: `conformance-${text}-${key()}`,
    kind: 'conformance',
    schema_version: '1',
    content: { format: 'text_and_properties', value: { text, properties: {} } },
    provenance: [{ source_id: 'conformance-fixture', locator: null, observed_at: null }],
    tags: ['conformance'],
  })
  const a = (await expectOk('remember a', send('remember', remember('alpha conformance'))))?.result.result
    .record
  const b = (await expectOk('remember b', send('remember', remember('beta conformance'))))?.result.result
    .record
  if (!a || !b) return problems
  const limits = {
    max_items: 10,
    max_depth: 2,
    max_payload_bytes: 65536,
    max_cost: 1000,
    timeout_ms: 1000,
    supernode_threshold: 100,
  }
  let c = (await expectOk('remember c', send('remember', remember('gamma conformance'))))?.result.result
    .record
  // One complete input per operation; trimming each to the fixture's required fields must still be accepted.
  const full = (): Record<string, Record<string, unknown>> => ({
    remember: remember('delta conformance'),
    relate: {
      source_id: a.id,
      target_id: b.id,
      kind: 'conformance_link',
      properties: {},
      provenance: [{ source_id: 'conformance-fixture' }],
      lifecycle: 'active',
    },
    recall: { objective: 'conformance', seed_ids: [], limits },
    update: { target: { kind: 'memory', id: a.id }, patch: { add_tags: ['updated'] } },
    forget: { memory_id: c.id, mode: 'tombstone', reason: 'conformance' },
    consolidate: {
      mode: { mode: 'propose' },
      memory_ids: [a.id, b.id],
      reason: 'conformance',
      preserve_disagreements: true,
    },
    trace: { target: { kind: 'memory', id: a.id } },
  })

  for (const spec of fixture.operations) {
    const name = spec.operation
    const input = full()[name]
    if (input === undefined) {
      problems.push(`fixture names an operation the checker does not know: ${name}`)
      continue
    }
    const minimal = Object.fromEntries(Object.entries(input).filter(([k]) => spec.required.includes(k)))
    await expectOk(`${name} with exactly its required fields`, send(name, minimal))
    if (name === 'forget')
      c = (await expectOk('remember c again', send('remember', remember('gamma again'))))?.result.result
        .record
    for (const field of spec.required) {
      if (SPEC_OPTIONAL[name]?.includes(field)) continue
      const { [field]: _dropped, ...rest } = full()[name] as Record<string, unknown>
      await expectCode(`${name} without ${field}`, 'INVALID_REQUEST', send(name, rest))
    }
    for (const limit of spec.bounded_by ?? []) {
      const { [limit]: _dropped, ...rest } = limits as Record<string, number>
      await expectCode(
        `${name} without limit ${limit}`,
        'INVALID_REQUEST',
        send(name, { ...input, limits: rest }),
      )
      await expectCode(
        `${name} with ${limit} 0`,
        'INVALID_BUDGET',
        send(name, { ...input, limits: { ...limits, [limit]: 0 } }),
      )
    }
    // Mutation class: a mutation needs a key and answers with a receipt; a read needs none.
    const mutationInput =
      spec.mutation === 'apply_only'
        ? await (async () => {
            const proposal = await expectOk('consolidate propose', send(name, input, null))
            return {
              ...input,
              mode: {
                mode: 'apply_approved',
                proposal_id: proposal?.result.result.proposal_id,
                approval_policy: 'conformance',
              },
            }
          })()
        : full()[name]
    if (name === 'forget')
      c = (await expectOk('remember c again', send('remember', remember('gamma third'))))?.result.result
        .record
    if (spec.mutation === false) {
      await expectOk(`${name} without a key`, send(name, mutationInput, null))
      continue
    }
    await expectCode(
      `${name} without a key`,
      'IDEMPOTENCY_KEY_REQUIRED',
      send(name, name === 'forget' ? { ...mutationInput, memory_id: c.id } : mutationInput, null),
    )
    const k = key()
    const body = name === 'forget' ? { ...mutationInput, memory_id: c.id } : mutationInput
    const first = await expectOk(`${name} with a key`, send(name, body, k))
    const receipt = first?.result.result.receipt
    if (
      !receipt ||
      typeof receipt.committed_id !== 'string' ||
      !Number.isInteger(receipt.committed_version) ||
      typeof receipt.audit_correlation_id !== 'string' ||
      receipt.replayed !== false
    )
      problems.push(
        `${name}: the receipt lacks committed_id, committed_version, audit_correlation_id or replayed false`,
      )
    const again = await expectOk(`${name} replay`, send(name, body, k))
    if (again?.result.result.receipt?.replayed !== true)
      problems.push(`${name}: a replay does not say replayed true`)
  }

  for (const invariant of fixture.invariants) {
    switch (invariant) {
      case 'trusted context is not part of an operation payload':
        for (const field of TRUSTED_FIELDS) {
          await expectCode(
            `payload field ${field}`,
            'INVALID_REQUEST',
            door.send({ contract_version: 'v1', operation: 'recall', input: full().recall, [field]: 'x' }),
          )
          await expectCode(
            `input field ${field}`,
            'INVALID_REQUEST',
            send('recall', { ...full().recall, [field]: 'x' }),
          )
        }
        break
      case 'mutations require idempotency and return a durability-gated receipt':
        // Checked per operation above (key required, receipt, replay).
        break
      case 'workspace-hidden targets use the same not-found surface': {
        const missing = await expectCode(
          'trace of a missing memory',
          'NOT_FOUND',
          send('trace', { target: { kind: 'memory', id: 'node--999999999' } }),
        )
        if (hidden !== undefined) {
          const target = { kind: 'memory', id: a.id }
          const seen = await expectCode(
            'trace of a hidden memory',
            'NOT_FOUND',
            hidden.send({ contract_version: 'v1', operation: 'trace', input: { target } }),
          )
          await expectCode(
            'update of a hidden memory',
            'NOT_FOUND',
            hidden.send({
              contract_version: 'v1',
              operation: 'update',
              idempotency_key: key(),
              input: { target, patch: {} },
            }),
          )
          const asMissing = `no memory ${a.id} in this workspace`
          if (!seen.ok && !missing.ok && seen.message !== asMissing)
            problems.push(`a hidden target's message differs from a missing one's: ${seen.message}`)
        }
        break
      }
      case 'consolidation retains originals and disagreements': {
        const x = (await expectOk('remember x', send('remember', remember('epsilon one'))))?.result.result
          .record
        const y = (await expectOk('remember y', send('remember', remember('epsilon two, disagreeing'))))
          ?.result.result.record
        const input = {
          mode: { mode: 'propose' },
          memory_ids: [x.id, y.id],
          reason: 'conformance',
          preserve_disagreements: true,
        }
        const proposal = (await expectOk('propose', send('consolidate', input, null)))?.result.result
        const applied = (
          await expectOk(
            'apply',
            send('consolidate', {
              ...input,
              mode: {
                mode: 'apply_approved',
                proposal_id: proposal?.proposal_id,
                approval_policy: 'conformance',
              },
            }),
          )
        )?.result.result
        if (applied?.originals_retained !== true || applied?.disagreements_retained !== true)
          problems.push('consolidation does not report originals and disagreements retained')
        for (const id of [x.id, y.id]) {
          const trace = await expectOk(
            `trace original ${id}`,
            send('trace', { target: { kind: 'memory', id } }, null),
          )
          if (trace && trace.result.result.versions.length === 0)
            problems.push(`original ${id} lost its history`)
        }
        break
      }
      case 'application forgetting is distinct from regulatory erasure': {
        const z = (await expectOk('remember z', send('remember', remember('zeta forgettable'))))?.result
          .result.record
        await expectOk(
          'application_delete',
          send('forget', { memory_id: z.id, mode: 'application_delete', reason: 'conformance' }),
        )
        const recall = await expectOk(
          'recall after forget',
          send('recall', { objective: 'zeta forgettable', seed_ids: [z.id], limits }, null),
        )
        if (recall?.result.result.items.some((i: { record: { id: string } }) => i.record.id === z.id))
          problems.push('ordinary recall still returns an application-deleted memory')
        const trace = await expectOk(
          'trace after forget',
          send('trace', { target: { kind: 'memory', id: z.id } }, null),
        )
        if (trace && trace.result.result.versions.at(-1)?.lifecycle !== 'tombstoned')
          problems.push('application deletion erased the record instead of tombstoning it')
        break
      }
      default:
        problems.push(`fixture lists an invariant the checker does not know: ${invariant}`)
    }
  }
  return problems
}
