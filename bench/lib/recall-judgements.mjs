// Builds core/src/memory/relevance/recall-judgements.json: the memory-recall judged set over ATT&CK ICS + Mobile.
// Objectives and their rules are written here by hand; the grades of relational and multi-hop objectives are
// derived from the bundles' own relationships (read from SHARED_DIR, never copied), then hand-checked.
// Grades are keyed by STIX id, so they stay stable whatever memory ids a load hands out.
//   node bench/lib/recall-judgements.mjs          (rewrites the JSON)
// Rules:
//   lookup:        [[external id, grade], ...]                       graded by hand
//   mitigates:     T  -> every course-of-action that mitigates T 2, T itself 1
//   usedBy:        T  -> every group or software that uses T 2, campaigns and T itself 1
//   usesOf:        S  -> every technique/software S uses 2, S itself 1
//   targetsOf:     T  -> every asset T targets 2, T itself 1
//   mitigatesUsedBy S -> mitigations of the techniques S uses: 2 if they mitigate two or more of them, else 1
//   assetsOfUsedBy  S -> assets targeted by the techniques S uses: 2 if two or more of them target it, else 1
//   campaignsOf     G -> techniques and software of the campaigns attributed to G: 2; the campaigns 1
//   groupsViaSoftware T -> groups that use software that uses T: 2; the software 1
// Multi-hop objectives carry `anchor` (the STIX id of the entity they name): the benchmark runs them with and
// without it as an explicit seed. 20 % of each category (by a hash of the objective) is kept aside.
import { createHash } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, '..', '..')
const attack = join(resolve(root, process.env.SHARED_DIR ?? '../shared'), 'data', 'stix', 'attack')
const OUT = join(root, 'core/src/memory/relevance/recall-judgements.json')

const SPEC = {
  lookup: [
    [
      'adversary sends forged telemetry so operators see false values',
      [
        ['T0856', 2],
        ['T0832', 1],
      ],
    ],
    [
      'malware that wipes files and disks on engineering workstations',
      [
        ['T0809', 2],
        ['S0607', 2],
        ['S0368', 1],
      ],
    ],
    [
      'attacker uploads modified logic to a PLC',
      [
        ['T0843', 2],
        ['T0889', 2],
        ['T0821', 1],
        ['A0003', 1],
      ],
    ],
    [
      'turning off alarms so operators are not warned',
      [
        ['T0878', 2],
        ['T0838', 2],
      ],
    ],
    [
      'putting a controller into program mode to change it',
      [
        ['T0858', 2],
        ['T0868', 1],
      ],
    ],
    ['reading the tag names and points configured in a controller', [['T0861', 2]]],
    [
      'capturing traffic on the control network',
      [
        ['T0842', 2],
        ['T0887', 1],
      ],
    ],
    [
      'factory default passwords on field devices',
      [
        ['T0812', 2],
        ['T0891', 1],
      ],
    ],
    [
      'infected USB drives carried into the plant',
      [
        ['T0847', 2],
        ['T0864', 1],
        ['T1458', 1],
      ],
    ],
    [
      'controller that runs safety logic to shut a process down',
      [
        ['A0010', 2],
        ['M0812', 1],
        ['T0880', 1],
      ],
    ],
    [
      'mobile app hides its icon from the launcher',
      [
        ['T1628.001', 2],
        ['T1628', 1],
      ],
    ],
    [
      'malware records phone calls and the microphone',
      [
        ['T1429', 2],
        ['T1616', 1],
      ],
    ],
    [
      'tracking where the phone is located',
      [
        ['T1430', 2],
        ['T1430.001', 1],
      ],
    ],
    [
      'stealing text messages from the device',
      [
        ['T1636.004', 2],
        ['T1582', 1],
      ],
    ],
    [
      'app keeps administrator rights so it cannot be removed',
      [
        ['T1629.001', 2],
        ['T1626.001', 2],
      ],
    ],
    [
      'overlay windows that capture credentials typed into banking apps',
      [
        ['T1417.002', 2],
        ['T1417', 1],
      ],
    ],
    [
      'rebooting or shutting down devices to disrupt the process',
      [
        ['T0816', 2],
        ['T0881', 1],
      ],
    ],
    [
      'segmenting the network into zones and conduits',
      [
        ['M0930', 2],
        ['M0937', 1],
      ],
    ],
    [
      'historian that stores process data',
      [
        ['A0006', 2],
        ['T0811', 1],
      ],
    ],
    ['server that routes protocols between networks in a substation', [['A0009', 2]]],
  ],
  mitigates: [
    ['what mitigates Loss of View', { mitigates: 'T0829' }],
    ['how to prevent Spearphishing Attachment in ICS', { mitigates: 'T0865' }],
    ['mitigations for Program Download', { mitigates: 'T0843' }],
    ['what stops Adversary-in-the-Middle on industrial networks', { mitigates: 'T0830' }],
    ['defences against Default Credentials', { mitigates: 'T0812' }],
    ['how can Modify Alarm Settings be mitigated', { mitigates: 'T0838' }],
    ['countermeasures for Exploitation of Remote Services', { mitigates: 'T0866' }],
    ['what mitigates Rogue Master', { mitigates: 'T0848' }],
    ['how to mitigate Unauthorized Command Message', { mitigates: 'T0855' }],
    ['mitigations for Spoof Reporting Message', { mitigates: 'T0856' }],
    ['what prevents Lockscreen Bypass on mobile', { mitigates: 'T1461' }],
    ['how to mitigate SIM Card Swap', { mitigates: 'T1451' }],
    ['what mitigates Keylogging on phones', { mitigates: 'T1417.001' }],
    ['mitigations against Screen Capture on mobile devices', { mitigates: 'T1513' }],
    ['how to prevent Compromise Client Software Binary', { mitigates: 'T1645' }],
    ['what mitigates Change Operating Mode', { mitigates: 'T0858' }],
  ],
  uses: [
    ['which groups or software use Spearphishing Attachment', { usedBy: 'T0865' }],
    ['who uses Loss of View', { usedBy: 'T0829' }],
    ['which malware uses Modify Parameter', { usedBy: 'T0836' }],
    ['software that employs Lateral Tool Transfer', { usedBy: 'T0867' }],
    ['which groups use Drive-by Compromise', { usedBy: 'T0817' }],
    ['which software uses Command-Line Interface in ICS', { usedBy: 'T0807' }],
    ['what malware leverages Input Injection on mobile', { usedBy: 'T1516' }],
    ['which software uses Device Lockout', { usedBy: 'T1629.002' }],
    ['what techniques does Triton use', { usesOf: 'S1009' }],
    ['techniques used by Industroyer', { usesOf: 'S0604' }],
    ['what does INCONTROLLER use', { usesOf: 'S1045' }],
    ['techniques employed by Pegasus for iOS', { usesOf: 'S0289' }],
    ['what does the group Windshift use', { usesOf: 'G0112' }],
    ['which assets does Rogue Master target', { targetsOf: 'T0848' }],
    ['what devices does Block Serial COM target', { targetsOf: 'T0805' }],
    ['what does the Maroochy Water Breach campaign use', { usesOf: 'C0020' }],
  ],
  multihop: [
    ['mitigations for the techniques Stuxnet uses', { mitigatesUsedBy: 'S0603' }],
    ['how to defend against the techniques used by Triton', { mitigatesUsedBy: 'S1009' }],
    ['what mitigates the techniques of Industroyer', { mitigatesUsedBy: 'S0604' }],
    ['mitigations against what PLC-Blaster does', { mitigatesUsedBy: 'S1006' }],
    ['what prevents the techniques INCONTROLLER uses', { mitigatesUsedBy: 'S1045' }],
    ['mitigations for the techniques used by Backdoor.Oldrea', { mitigatesUsedBy: 'S0093' }],
    ['mitigations for techniques that Cerberus uses', { mitigatesUsedBy: 'S0480' }],
    ['which assets are targeted by the techniques Triton uses', { assetsOfUsedBy: 'S1009' }],
    ['what devices do Stuxnet techniques target', { assetsOfUsedBy: 'S0603' }],
    ['assets at risk from the techniques of Industroyer2', { assetsOfUsedBy: 'S1072' }],
    ['assets targeted by the techniques used in the Maroochy Water Breach', { assetsOfUsedBy: 'C0020' }],
    ['techniques used in campaigns attributed to Sandworm Team', { campaignsOf: 'G0034' }],
    ['what did campaigns attributed to TEMP.Veles use', { campaignsOf: 'G0088' }],
    ['groups that use software which performs Loss of View', { groupsViaSoftware: 'T0829' }],
    ['groups behind software that uses Data Destruction', { groupsViaSoftware: 'T0809' }],
    ['mitigations for techniques FrostyGoop uses', { mitigatesUsedBy: 'S1165' }],
  ],
  typo: [
    [
      'adversery in the midle on control networks',
      [
        ['T0830', 2],
        ['T1638', 1],
      ],
    ],
    ['mitigatons for rogue mastr devices', { mitigates: 'T0848' }],
    [
      'denail of veiw on the HMI',
      [
        ['T0815', 2],
        ['T0829', 1],
        ['A0002', 1],
      ],
    ],
    ['spearfishing atachment', [['T0865', 2]]],
    [
      'progam downlaod to controllers',
      [
        ['T0843', 2],
        ['T0845', 1],
      ],
    ],
    [
      'tritn safety malware',
      [
        ['S1009', 2],
        ['C0030', 1],
        ['A0010', 1],
      ],
    ],
    [
      'eavesdropping on plant network packets',
      [
        ['T0842', 2],
        ['T0887', 1],
      ],
    ],
    [
      'ransomware that encrypts industrial hosts',
      [
        ['S0372', 2],
        ['S0366', 2],
        ['S0446', 2],
        ['S0496', 2],
        ['S0605', 2],
        ['S0606', 1],
        ['S0368', 1],
      ],
    ],
    [
      'wiping data on workstations',
      [
        ['T0809', 2],
        ['S0607', 1],
      ],
    ],
    [
      'silencing alerts in the control room',
      [
        ['T0878', 2],
        ['T0838', 1],
      ],
    ],
    [
      'snooping on keystrokes on a smartphone',
      [
        ['T1417.001', 2],
        ['T1417', 1],
      ],
    ],
    ['covertly recording video with the camera', [['T1512', 2]]],
    ['cellphone geolocation tracking', [['T1430', 2]]],
    [
      'whitelisting allowed network connections',
      [
        ['M0807', 2],
        ['M0937', 1],
      ],
    ],
    ['bypasing the lock screen', [['T1461', 2]]],
    ['stuxnett worm techniques', { usesOf: 'S0603' }],
  ],
}

const bundles = ['ics-attack-18.1.json', 'mobile-attack-17.1.json'].map((f) =>
  JSON.parse(readFileSync(join(attack, f), 'utf8')),
)
const objects = new Map()
const rels = []
for (const b of bundles)
  for (const o of b.objects) {
    if (o.revoked === true || o.x_mitre_deprecated === true) continue
    if (o.type === 'relationship') rels.push(o)
    else if (!objects.has(o.id)) objects.set(o.id, o)
  }
const live = rels.filter((r) => objects.has(r.source_ref) && objects.has(r.target_ref))
const extOf = (o) =>
  o.external_references?.find((r) => String(r.source_name).startsWith('mitre'))?.external_id
const byExt = new Map()
for (const o of objects.values()) if (extOf(o) && !byExt.has(extOf(o))) byExt.set(extOf(o), o)
const obj = (ext) => {
  const o = byExt.get(ext)
  if (o === undefined) throw new Error(`unknown ATT&CK id ${ext}`)
  return o
}
const into = (id, kind) => live.filter((r) => r.target_ref === id && r.relationship_type === kind)
const outOf = (id, kind) => live.filter((r) => r.source_ref === id && r.relationship_type === kind)
const type = (id) => objects.get(id).type
const ACTORS = new Set(['intrusion-set', 'malware', 'tool', 'campaign'])

/** stix id -> grade, the higher grade winning. */
function grades(rule) {
  const g = new Map()
  const put = (id, grade) => g.set(id, Math.max(g.get(id) ?? 0, grade))
  const counted = (ids) => {
    const n = new Map()
    for (const id of ids) n.set(id, (n.get(id) ?? 0) + 1)
    for (const [id, c] of n) put(id, c >= 2 ? 2 : 1)
  }
  if (Array.isArray(rule)) for (const [ext, grade] of rule) put(obj(ext).id, grade)
  else if (rule.mitigates) {
    const t = obj(rule.mitigates).id
    put(t, 1)
    for (const r of into(t, 'mitigates')) put(r.source_ref, 2)
  } else if (rule.usedBy) {
    const t = obj(rule.usedBy).id
    put(t, 1)
    for (const r of into(t, 'uses'))
      if (ACTORS.has(type(r.source_ref))) put(r.source_ref, type(r.source_ref) === 'campaign' ? 1 : 2)
  } else if (rule.usesOf) {
    const s = obj(rule.usesOf).id
    put(s, 1)
    for (const r of outOf(s, 'uses')) put(r.target_ref, 2)
  } else if (rule.targetsOf) {
    const t = obj(rule.targetsOf).id
    put(t, 1)
    for (const r of outOf(t, 'targets')) put(r.target_ref, 2)
  } else if (rule.mitigatesUsedBy) {
    const techniques = outOf(obj(rule.mitigatesUsedBy).id, 'uses').map((r) => r.target_ref)
    counted(techniques.flatMap((t) => into(t, 'mitigates').map((r) => r.source_ref)))
  } else if (rule.assetsOfUsedBy) {
    const techniques = outOf(obj(rule.assetsOfUsedBy).id, 'uses').map((r) => r.target_ref)
    counted(techniques.flatMap((t) => outOf(t, 'targets').map((r) => r.target_ref)))
  } else if (rule.campaignsOf) {
    for (const c of into(obj(rule.campaignsOf).id, 'attributed-to')) {
      put(c.source_ref, 1)
      for (const r of outOf(c.source_ref, 'uses')) put(r.target_ref, 2)
    }
  } else if (rule.groupsViaSoftware) {
    for (const s of into(obj(rule.groupsViaSoftware).id, 'uses')) {
      if (type(s.source_ref) !== 'malware' && type(s.source_ref) !== 'tool') continue
      put(s.source_ref, 1)
      for (const r of into(s.source_ref, 'uses'))
        if (type(r.source_ref) === 'intrusion-set') put(r.source_ref, 2)
    }
  } else throw new Error(`unknown rule ${JSON.stringify(rule)}`)
  return g
}

const ANCHORED = ['mitigatesUsedBy', 'assetsOfUsedBy', 'campaignsOf', 'groupsViaSoftware']
const hash = (s) => createHash('sha256').update(s).digest('hex')
const queries = []
for (const [category, entries] of Object.entries(SPEC)) {
  const aside = new Set(
    [...entries]
      .map(([objective]) => objective)
      .sort((a, b) => (hash(a) < hash(b) ? -1 : 1))
      .slice(0, Math.round(entries.length * 0.2)),
  )
  for (const [objective, rule] of entries) {
    const g = grades(rule)
    if (g.size === 0) throw new Error(`no relevant object for "${objective}"`)
    const anchorRule = Array.isArray(rule) ? undefined : ANCHORED.find((k) => k in rule)
    queries.push({
      category,
      part: aside.has(objective) ? 'kept_aside' : 'tuning',
      objective,
      rule,
      ...(anchorRule === undefined ? {} : { anchor: obj(rule[anchorRule]).id }),
      relevant: [...g]
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .map(([stix_id, grade]) => ({
          stix_id,
          external_id: extOf(objects.get(stix_id)) ?? null,
          name: objects.get(stix_id).name ?? null,
          grade,
        })),
    })
  }
}
writeFileSync(
  OUT,
  `${JSON.stringify(
    {
      description:
        "Memory-recall judged set over ATT&CK ICS 18.1 + Mobile 17.1 loaded as memories and relationships. Grades (2 first, 1 related) are keyed by STIX id; relational and multi-hop grades are derived from the bundles' relationships by bench/lib/recall-judgements.mjs (rules kept beside each objective). part kept_aside objectives are never looked at while tuning.",
      queries,
    },
    null,
    1,
  )}\n`,
)
const tally = {}
for (const q of queries) tally[`${q.category}/${q.part}`] = (tally[`${q.category}/${q.part}`] ?? 0) + 1
console.log(queries.length, 'objectives', tally)
for (const q of queries)
  if (q.relevant.length > 25 || q.relevant.length < 1)
    console.log('check size', q.objective, q.relevant.length)
