/**
 * CI round trip (issue 5 item 4): import ATT&CK ICS and Mobile, export in strict mode, and check that every
 * object comes back unchanged apart from the documented `x_service_*` additions and passes its OASIS schema.
 */
import { openEngine } from '@service/core'
import { canonicalize, exportStix, importStix } from '@service/core/stix'
import { describe, expect, it } from 'vitest'
import { DATA_BUNDLES, loadOracle, readObjects, stixDataPresent } from './oasis.oracle.js'

const ADDED = new Set(['x_service_source_record_id', 'x_service_evidence_refs'])

describe.skipIf(!stixDataPresent)('ATT&CK and OASIS examples round trip (SHARED_DIR data)', () => {
  const oracle = stixDataPresent ? loadOracle() : null
  for (const file of DATA_BUNDLES.filter((f) => f.startsWith('attack/') || f.includes('threat-reports'))) {
    it(`${file}: strict export returns every object as imported, OASIS-valid`, async () => {
      const engine = await openEngine()
      const objects = readObjects(file)
      const imported = await importStix(engine, { bundle: { type: 'bundle', objects } })
      expect(imported.result.metrics.created).toBe(objects.length)
      const first = await exportStix(engine)
      const second = await exportStix(engine)
      expect(second.text).toBe(first.text)
      const out = JSON.parse(first.text) as { objects: Record<string, unknown>[] }
      expect(out.objects).toHaveLength(objects.length)
      const byId = new Map(objects.map((o) => [o.id, o]))
      const changed: string[] = []
      const invalid: string[] = []
      for (const o of out.objects) {
        const stripped = Object.fromEntries(Object.entries(o).filter(([k]) => !ADDED.has(k)))
        if (canonicalize(stripped) !== canonicalize(byId.get(o.id))) changed.push(String(o.id))
        if (!oracle?.valid(o)) invalid.push(`${o.id}: ${oracle?.errors(o)}`)
      }
      expect(changed).toEqual([])
      expect(invalid.slice(0, 5)).toEqual([])
      await engine.close()
    }, 30_000) // whole ATT&CK bundles, imported and exported twice
  }
})
