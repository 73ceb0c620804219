/**
 * A second judged recall set: an assistant's memory of its user, generated deterministically (no data file).
 *
 * People, teams, projects, meetings with attendees, decisions that replace one another, preferences of the user
 * that change (each version `replaces` the one before, with validity in time), and facts about people with
 * validity (where they live, where they work). The user is a hub: linked to every person, meeting and preference.
 * Objectives are in the words of an agent asking its memory, five categories (lookup, relational, multi-hop,
 * temporal, hub-crossing), graded by rules from the generator's ground truth, written before any result was
 * looked at; every fifth objective of each category is kept aside (scored once, at the end).
 */

export interface AssistantMemory {
  key: string
  kind: string
  text: string
  tags: string[]
  valid_from?: string
  valid_until?: string
}

export interface AssistantRelationship {
  source: string
  target: string
  kind: string
}

export type AssistantCategory = 'lookup' | 'relational' | 'multihop' | 'temporal' | 'hub'

export interface AssistantQuery {
  objective: string
  category: AssistantCategory
  part: 'tuning' | 'kept_aside'
  /** The memory the objective is about (for the anchored form: the same objective with it as a seed). */
  anchor: string
  /** Memory key -> grade (2 answers it, 1 helps). */
  grades: Record<string, number>
}

export interface AssistantSet {
  memories: AssistantMemory[]
  relationships: AssistantRelationship[]
  queries: AssistantQuery[]
  /** The instant the set is written for: validity is read against it. */
  now: string
}

/** mulberry32: a small seeded generator, the same sequence on every platform. */
export function random(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const FIRST =
  'Ada Bruno Chiara Dmitri Elena Farid Greta Hugo Ines Jonas Keiko Luca Maren Nadia Oskar Priya Quentin Rosa Sven Tamsin Ulla Viktor Wanda Xavier Yara Zeno Amara Basil Celine Dario Esme Felix Gaia Hamid Ilse Jorge Kalani Leona Milo Noor'.split(
    ' ',
  )
const LAST =
  'Abara Brandt Castell Dufour Eklund Ferraro Galloway Haddad Ishikawa Jansen Kowalski Lindqvist Moreau Nakamura Okafor Petrov Quintero Rahman Schultz Tanaka Urquhart Varga Whitlock Yilmaz Zielinski Achterberg Bianchi Carvalho Delacroix Engel'.split(
    ' ',
  )
const ROLES =
  'designer,engineer,recruiter,lawyer,accountant,researcher,product manager,data analyst,sales lead,nurse,architect,teacher'.split(
    ',',
  )
const CITIES =
  'Lisbon,Porto,Ghent,Utrecht,Lyon,Turin,Krakow,Tallinn,Bergen,Malmo,Graz,Bilbao,Cork,Leipzig,Bologna,Aarhus'.split(
    ',',
  )
const ORGS =
  'Northwind,Globex,Initech,Umbrella Health,Stark Logistics,Wayne Foods,Acme Robotics,Hooli,Vandelay Imports,Soylent Labs,Tyrell Energy,Cyberdyne Books'.split(
    ',',
  )
const PROJECT_A =
  'Aurora,Beacon,Cedar,Delta,Ember,Falcon,Granite,Harbor,Iris,Juniper,Kestrel,Lumen,Meridian,Nimbus,Orchid,Pioneer,Quarry,Redwood,Summit,Tundra'.split(
    ',',
  )
const PROJECT_B = 'migration,launch,redesign,audit,rollout'.split(',')
const TEAMS = 'Platform,Growth,Payments,Mobile,Research,Support,Design,Data,Security,Finance'.split(',')
const TOOLS = 'Postgres,Kafka,Figma,Notion,Jira,Linear,Terraform,Airflow,Snowflake,Slack,Miro,Grafana'.split(
  ',',
)
const TOPICS: [string, string[]][] = [
  ['coffee order', ['oat flat white', 'double espresso', 'cold brew', 'cortado']],
  ['meeting time', ['early mornings', 'late afternoons', 'right after lunch']],
  ['note format', ['bullet points', 'long prose', 'a table']],
  ['travel seat', ['aisle seat', 'window seat']],
  ['reminder channel', ['email', 'text message', 'calendar alert']],
  ['lunch spot', ['the ramen bar', 'the salad place', 'the canteen']],
  ['running route', ['the river loop', 'the park hills', 'the harbour path']],
  ['reading genre', ['crime novels', 'history', 'science fiction']],
  ['music for focus', ['lo-fi beats', 'classical piano', 'silence']],
  ['code editor', ['Vim', 'VS Code', 'Emacs']],
  ['airline', ['KLM', 'TAP', 'Lufthansa']],
  ['team ritual', ['Friday demos', 'Monday planning', 'no-meeting Wednesdays']],
]
const MEETING_TYPES = ['kickoff', 'design review', 'retrospective']

const day = (year: number, month: number, d: number) =>
  `${year}-${String(month).padStart(2, '0')}-${String(d).padStart(2, '0')}T09:00:00Z`

/** The set, the same for the same seed and size. */
export function assistantMemorySet(options: { seed?: number; people?: number } = {}): AssistantSet {
  const rnd = random(options.seed ?? 37)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1))
  const memories: AssistantMemory[] = []
  const relationships: AssistantRelationship[] = []
  const add = (m: AssistantMemory) => {
    memories.push(m)
    return m.key
  }
  const relate = (source: string, target: string, kind: string) =>
    relationships.push({ source, target, kind })

  add({
    key: 'user',
    kind: 'person',
    text: 'Dana Whitfield\nThe user I assist: a product director who asks me to keep track of her people, projects, meetings and habits.',
    tags: ['user', 'me'],
  })
  // ---- people, their teams, and facts about them with validity ----
  const people: { key: string; name: string; team: string; cities: string[]; orgs: string[] }[] = []
  const names = new Set<string>()
  const teams = TEAMS.map((t, i) =>
    add({
      key: `team-${i}`,
      kind: 'team',
      text: `${t} team\nA team Dana works with on ${t.toLowerCase()} matters.`,
      tags: ['team'],
    }),
  )
  const peopleCount = options.people ?? 700
  while (people.length < peopleCount) {
    const name = `${pick(FIRST)} ${pick(LAST)}`
    if (names.has(name)) continue
    names.add(name)
    const i = people.length
    const team = teams[i % teams.length] as string
    const key = add({
      key: `person-${i}`,
      kind: 'person',
      text: `${name}\n${pick(ROLES)}, someone Dana knows; ${pick(['met at a conference', 'a former colleague', 'introduced by a friend', 'a neighbour', 'met through work'])}.`,
      tags: ['person'],
    })
    relate('user', key, 'knows')
    relate(key, team, 'member-of')
    // Where they live and work: the current fact, and for many an earlier one it replaced.
    const cities = [pick(CITIES)]
    const orgs = [pick(ORGS)]
    if (rnd() < 0.5) cities.unshift(pick(CITIES.filter((c) => c !== cities[0])))
    if (rnd() < 0.4) orgs.unshift(pick(ORGS.filter((o) => o !== orgs[0])))
    const moved = day(2023, int(3, 11), int(1, 28))
    const versions = (what: 'lives' | 'works', values: string[]) => {
      let before: string | null = null
      values.forEach((v, n) => {
        const current = n === values.length - 1
        const fact = add({
          key: `${what}-${i}-${n}`,
          kind: 'fact',
          text:
            what === 'lives'
              ? `${name} lives in ${v}`
              : `${name} works at ${v}${current ? '' : ' (earlier job)'}`,
          tags: [what === 'lives' ? 'home' : 'work'],
          ...(values.length > 1 && current ? { valid_from: moved } : {}),
          ...(current ? {} : { valid_from: day(2019, 1, 1), valid_until: moved }),
        })
        relate(fact, key, 'about')
        if (before !== null) relate(fact, before, 'replaces')
        before = fact
      })
    }
    versions('lives', cities)
    versions('works', orgs)
    people.push({ key, name, team, cities, orgs })
  }
  // ---- projects, who works on them, meetings and decisions ----
  const projects: { key: string; name: string; members: number[]; meetings: Record<string, string> }[] = []
  let p = 0
  for (const a of PROJECT_A)
    for (const b of PROJECT_B) {
      if (rnd() < 0.4) continue
      const name = `${a} ${b}`
      const lead = int(0, people.length - 1)
      const key = add({
        key: `project-${p}`,
        kind: 'project',
        text: `Project ${name}\nThe ${b} Dana's group runs under the name ${a}, led by ${people[lead]?.name}.`,
        tags: ['project'],
      })
      relate(key, people[lead]?.key as string, 'led-by')
      relate('user', key, 'works-on')
      const members = new Set<number>([lead])
      while (members.size < int(3, 6)) members.add(int(0, people.length - 1))
      for (const m of members) relate(people[m]?.key as string, key, 'works-on')
      const meetings: Record<string, string> = {}
      MEETING_TYPES.forEach((type, t) => {
        const when = day(2024, 1 + ((p + t * 4) % 12), int(1, 28))
        const meeting = add({
          key: `meeting-${p}-${t}`,
          kind: 'meeting',
          text: `${type[0]?.toUpperCase()}${type.slice(1)} meeting for ${name}\nHeld on ${when.slice(0, 10)}.`,
          tags: ['meeting'],
          valid_from: when,
        })
        meetings[type] = meeting
        relate(meeting, key, 'about')
        relate('user', meeting, 'attended')
        // Attendees: some of the project's members and one or two others.
        const attendees = new Set([...members].filter(() => rnd() < 0.7))
        attendees.add(int(0, people.length - 1))
        for (const a of attendees) relate(people[a]?.key as string, meeting, 'attended')
      })
      // A tool decision, replaced for some projects by a later one.
      const tools = [pick(TOOLS)]
      if (rnd() < 0.6) tools.push(pick(TOOLS.filter((t) => t !== tools[0])))
      let before: string | null = null
      tools.forEach((tool, n) => {
        const current = n === tools.length - 1
        const changed = day(2024, int(5, 11), int(1, 28))
        const decision = add({
          key: `decision-${p}-${n}`,
          kind: 'decision',
          text: `Decision: ${name} uses ${tool}\nAgreed at the ${n === 0 ? 'kickoff' : 'design review'} for ${name}.`,
          tags: ['decision'],
          ...(tools.length > 1 ? (current ? { valid_from: changed } : { valid_until: changed }) : {}),
        })
        relate(decision, key, 'concerns')
        relate(decision, meetings[n === 0 ? 'kickoff' : 'design review'] as string, 'decided-in')
        if (before !== null) relate(decision, before, 'replaces')
        before = decision
      })
      projects.push({ key, name, members: [...members], meetings })
      p++
    }
  // ---- the user's preferences that change ----
  const preferences: { topic: string; keys: string[] }[] = []
  TOPICS.forEach(([topic, values], t) => {
    const n = int(2, values.length)
    const keys: string[] = []
    for (let v = 0; v < n; v++) {
      const current = v === n - 1
      const from = day(2021 + v, int(1, 12), int(1, 28))
      const until = current ? undefined : day(2022 + v, int(1, 12), int(1, 28))
      const key = add({
        key: `preference-${t}-${v}`,
        kind: 'preference',
        text: `Dana's ${topic}: ${values[v]}`,
        tags: ['preference'],
        valid_from: from,
        ...(until === undefined ? {} : { valid_until: until }),
      })
      relate(key, 'user', 'preference-of')
      if (keys.length > 0) relate(key, keys[keys.length - 1] as string, 'replaces')
      keys.push(key)
    }
    preferences.push({ topic, keys })
  })

  // ---- objectives, graded by rules from the ground truth above ----
  const queries: AssistantQuery[] = []
  const counts: Record<string, number> = {}
  const ask = (
    category: AssistantCategory,
    objective: string,
    anchor: string,
    grades: Record<string, number>,
  ) => {
    const n = counts[category] ?? 0
    counts[category] = n + 1
    queries.push({ objective, category, part: n % 5 === 4 ? 'kept_aside' : 'tuning', anchor, grades })
  }
  const stride = (xs: readonly unknown[], k: number, offset: number) => (offset * 7 + k * 13) % xs.length
  const PER = 15
  for (let k = 0; k < PER; k++) {
    const person = people[stride(people, k, 1)] as (typeof people)[number]
    const i = person.key.slice('person-'.length)
    // lookup: one named person or project.
    if (k % 2 === 0)
      ask('lookup', `What do I know about ${person.name}?`, person.key, {
        [person.key]: 2,
        [`lives-${i}-${person.cities.length - 1}`]: 1,
        [`works-${i}-${person.orgs.length - 1}`]: 1,
      })
    else {
      const project = projects[stride(projects, k, 2)] as (typeof projects)[number]
      ask('lookup', `Pull up my notes on the ${project.name} project`, project.key, { [project.key]: 2 })
    }
    // relational: across one relationship.
    const project = projects[stride(projects, k, 3)] as (typeof projects)[number]
    if (k % 2 === 0) {
      const grades: Record<string, number> = {}
      for (const m of project.members) grades[people[m]?.key as string] = 2
      ask('relational', `Who works on ${project.name}?`, project.key, grades)
    } else {
      const teammate = people[stride(people, k, 4)] as (typeof people)[number]
      ask('relational', `Which team is ${teammate.name} a member of?`, teammate.key, {
        [teammate.team]: 2,
      })
    }
    // multi-hop: two relationships away.
    const other = projects[stride(projects, k, 5)] as (typeof projects)[number]
    if (k % 2 === 0) {
      const grades: Record<string, number> = {}
      for (const r of relationships) if (r.kind === 'concerns' && r.target === other.key) grades[r.source] = 2
      ask('multihop', `What decisions came out of the meetings about ${other.name}?`, other.key, grades)
    } else {
      const member = people[stride(people, k, 6)] as (typeof people)[number]
      const grades: Record<string, number> = {}
      for (const x of people) if (x.team === member.team && x.key !== member.key) grades[x.key] = 2
      ask(
        'multihop',
        `Who else is in the same team as ${member.name}?`,
        member.key,
        Object.fromEntries(Object.entries(grades).slice(0, 40)),
      )
    }
    // temporal: what held before.
    const movers = people.filter((x) => x.cities.length > 1)
    const changers = people.filter((x) => x.orgs.length > 1)
    const kind = k % 3
    if (kind === 0) {
      const x = movers[stride(movers, k, 7)] as (typeof people)[number]
      const j = x.key.slice('person-'.length)
      ask('temporal', `Where did ${x.name} live before the move?`, x.key, {
        [`lives-${j}-0`]: 2,
        [`lives-${j}-1`]: 1,
      })
    } else if (kind === 1) {
      const pref = preferences[stride(preferences, k, 8)] as (typeof preferences)[number]
      const grades: Record<string, number> = {}
      pref.keys.forEach((key, v) => {
        grades[key] = v === pref.keys.length - 1 ? 1 : 2
      })
      ask('temporal', `What was Dana's ${pref.topic} previously, before it changed?`, 'user', grades)
    } else {
      const x = changers[stride(changers, k, 9)] as (typeof people)[number]
      const j = x.key.slice('person-'.length)
      ask('temporal', `Where did ${x.name} work in 2022?`, x.key, {
        [`works-${j}-0`]: 2,
        [`works-${j}-1`]: 1,
      })
    }
    // hub-crossing: every meeting is also linked to the user.
    const met = projects[stride(projects, k, 10)] as (typeof projects)[number]
    const type = MEETING_TYPES[k % MEETING_TYPES.length] as string
    const meeting = met.meetings[type] as string
    const grades: Record<string, number> = { [meeting]: 1 }
    for (const r of relationships)
      if (r.kind === 'attended' && r.target === meeting && r.source !== 'user') grades[r.source] = 2
    ask('hub', `Who attended the ${type} of ${met.name}?`, meeting, grades)
  }
  return { memories, relationships, queries, now: '2025-06-01T00:00:00Z' }
}
