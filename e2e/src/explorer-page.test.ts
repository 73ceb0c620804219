/**
 * The explorer page in a real Chromium (playwright-core driving the system's `chromium`) against the real server
 * process, with the ATT&CK ICS and Mobile bundles imported under a session and a few memories beside them.
 * Screenshots of each step go to e2e/artifacts/ (git-ignored; CI keeps them).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, repoRoot, sharedDir, startServer, TOKEN } from './harness.js'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const ATTACK = join(sharedDir, 'data', 'stix', 'attack')
const BUNDLES = ['ics-attack-18.1.json', 'mobile-attack-17.1.json'].map((f) => join(ATTACK, f))
const ARTIFACTS = join(repoRoot, 'e2e', 'artifacts')
const WORKSPACE = 'workspace--attack'

const missing = [CHROMIUM, ...BUNDLES].filter((f) => !existsSync(f))
if (missing.length > 0) {
  const message = `explorer page tests need ${missing.join(', ')} (Debian package chromium; SHARED_DIR data)`
  // In CI their absence is a failure, not a skip.
  if (process.env.CI === 'true') throw new Error(message)
  process.stderr.write(`skipping explorer page tests: ${message}\n`)
}

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/**
 * The browser globals the page-side callbacks use, described here because the test program has no DOM types
 * (each callback casts `globalThis`; the cast is erased before the callback is sent to the page).
 */
interface PageGlobals {
  sessionStorage: { getItem(key: string): string | null }
  document: {
    querySelector(
      selector: string,
    ): { getBoundingClientRect(): { left: number; top: number; width: number; height: number } } | null
    activeElement: { getAttribute(name: string): string | null } | null
  }
  /** What the page exposes for tests and tools. */
  graphExplorer: { viewportPosition(id: string): { x: number; y: number } | null }
}

interface Ok<T> {
  ok: true
  result: T
}
interface Boundary {
  boundary_id: string
  kind: string
  sequence: number
}
interface TreeNode {
  boundary: Boundary
  children: TreeNode[]
}
interface Projection {
  nodes: { id: string; labels: string[]; properties: Record<string, { value?: unknown }> }[]
  relationships: { id: string; source: string; target: string }[]
}

/** The page loads projections of several MiB: give each wait the time a busy 2-core machine needs. */
const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 30_000, interval: 100 })

describe.skipIf(missing.length > 0)('explorer page in Chromium', () => {
  let server: RunningServer
  let browser: Browser
  let context: BrowserContext
  let page: Page
  let session: string
  let boundaries: Boundary[]
  const consoleErrors: string[] = []
  let shot = 0

  const screenshot = async (name: string, p: Page = page) => {
    shot++
    await p.screenshot({ path: join(ARTIFACTS, `explorer-${String(shot).padStart(2, '0')}-${name}.png`) })
  }
  const memory = (operation: string, input: unknown, key?: string) =>
    server.request<Ok<{ result: { record: { id: string } } }>>('/v1/memory/operations', {
      body: {
        contract_version: 'v1',
        operation,
        input,
        ...(key === undefined ? {} : { idempotency_key: key }),
      },
    })
  const remember = async (key: string, text: string, tags: string[]) =>
    (
      await memory(
        'remember',
        {
          kind: 'note',
          schema_version: '1',
          identity_key: key,
          content: { format: 'text', value: text },
          provenance: [{ source_id: 'report-ics-1', locator: 'p. 2', observed_at: '2025-01-02T00:00:00Z' }],
          tags,
        },
        key,
      )
    ).json.result.result.record.id
  const graph = (query: string) =>
    server.request<Ok<Projection>>(`/v1/explorer/sessions/${session}/graph${query}`)
  const drawnCount = async (p: Page = page) => {
    const box = p.getByTestId('graph')
    await poll(() => box.getAttribute('data-node-count')).not.toBeNull()
    return Number(await box.getAttribute('data-node-count'))
  }
  const newPage = async (ctx: BrowserContext) => {
    const p = await ctx.newPage()
    p.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text())
    })
    p.on('pageerror', (e) => consoleErrors.push(String(e)))
    return p
  }

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true })
    server = await startServer({ env: { SERVICE_MEMORY_WORKSPACE_ID: WORKSPACE } })
    const start = (actor: string) =>
      server.request<Ok<{ session_id: string }>>('/v1/sessions/start', {
        body: { workspace_id: WORKSPACE, actor_id: actor, actor_kind: 'user' },
      })
    session = (await start('analyst-e2e')).json.result.session_id
    const stopped = (await start('analyst-earlier')).json.result.session_id
    await server.request(`/v1/sessions/${stopped}/stop`, { method: 'POST' })
    for (const file of BUNDLES) {
      const imported = await server.request('/v1/import/stix', {
        body: {
          bundle: JSON.parse(readFileSync(file, 'utf8')),
          workspace_id: WORKSPACE,
          session_id: session,
        },
      })
      expect(imported.status).toBe(200)
    }
    const stuxnet = await remember(
      'stuxnet-plc',
      'Stuxnet reprograms Siemens PLC controllers in ICS plants',
      ['ics'],
    )
    const triton = await remember('triton-sis', 'Triton attacks Triconex safety controllers in ICS plants', [
      'ics',
    ])
    await memory(
      'relate',
      {
        source_id: stuxnet,
        target_id: triton,
        kind: 'similar_to',
        properties: {},
        provenance: [],
        lifecycle: 'active',
      },
      'relate-stuxnet-triton',
    )
    const timeline = await server.request<Ok<{ roots: TreeNode[] }>>(
      `/v1/explorer/sessions/${session}/timeline`,
    )
    boundaries = []
    for (let level = timeline.json.result.roots; level.length > 0; level = level[0]!.children)
      boundaries.push(level[0]!.boundary)
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [...CHROMIUM_ARGS],
      headless: true,
    })
    context = await browser.newContext({ viewport: { width: 1440, height: 900 } })
    page = await newPage(context)
  }, 180_000)

  afterAll(async () => {
    await browser?.close()
    await server?.stop()
  })

  it('serves a public shell with a strict CSP, and / redirects to it', async () => {
    const root = await server.request('/', { token: null })
    expect(root.status).toBe(302)
    expect(root.headers.location).toBe('/explorer/')
    const shell = await server.request('/explorer/', { token: null })
    expect(shell.status).toBe(200)
    expect(String(shell.headers['content-type'])).toContain('text/html')
    const csp = String(shell.headers['content-security-policy'])
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain("script-src 'self'")
    expect(csp).not.toContain('unsafe-inline')
    expect(csp).not.toContain('unsafe-eval')
    const unknown = await server.request<{ ok: false; error: { code: string } }>('/explorer/nope.js', {
      token: null,
    })
    expect(unknown.status).toBe(404)
    expect(unknown.json.error.code).toBe('NOT_FOUND')
    // The data is not public: the API still wants the bearer token.
    expect((await server.request('/v1/explorer/sessions', { token: null })).status).toBe(401)
  })

  it('takes the token from the fragment, removes it from the address bar and lists the session', async () => {
    await page.goto(`${server.url}/#token=${TOKEN}`)
    await poll(() => page.url()).toBe(`${server.url}/explorer/`)
    expect(
      await page.evaluate(() =>
        (globalThis as unknown as PageGlobals).sessionStorage.getItem('graph-explorer.token'),
      ),
    ).toBe(TOKEN)
    const sessions = page.getByTestId('sessions')
    await sessions.locator(`[data-session-id="${session}"]`).waitFor()
    expect(await sessions.locator('button.session').count()).toBe(1)
    await screenshot('sessions')
    await page.getByLabel('show stopped').check()
    await poll(() => sessions.locator('button.session').count()).toBe(2)
    expect(page.url()).toContain('stopped=1')
    await page.getByLabel('show stopped').uncheck()
  })

  it('opens a session: the graph at the current boundary is drawn with its budget shown', async () => {
    await page.locator(`[data-session-id="${session}"]`).click()
    const current = (await graph('')).json.result
    expect(await drawnCount()).toBe(current.nodes.length)
    expect(Number(await page.getByTestId('graph').getAttribute('data-relationship-count'))).toBe(
      current.relationships.length,
    )
    expect(page.url()).toContain(`session=${session}`)
    await poll(() => page.getByTestId('budget').textContent()).toContain('budget 5,000 nodes')
    await screenshot('graph-current')
  })

  it('moving the scrubber changes the drawn node count', async () => {
    const before = await drawnCount()
    const scrubber = page.getByTestId('scrubber')
    // The timeline arrives beside the projection (not before it): the scrubber has its positions once it has.
    await poll(() => scrubber.getAttribute('max')).toBe(String(boundaries.length))
    await scrubber.focus()
    await page.keyboard.press('Home') // the first boundary: after the ICS import only
    const first = (
      await graph(`?boundary_kind=${boundaries[0]!.kind}&boundary_id=${boundaries[0]!.boundary_id}`)
    ).json.result
    await expect
      .poll(() => page.getByTestId('graph').getAttribute('data-node-count'))
      .toBe(String(first.nodes.length))
    expect(first.nodes.length).not.toBe(before)
    expect(page.url()).toContain(`boundary=${boundaries[0]!.boundary_id}`)
    await screenshot('scrubber-first-boundary')
    await page.keyboard.press('End')
    await poll(() => page.getByTestId('graph').getAttribute('data-node-count')).toBe(String(before))
  })

  it('clicking a node shows its STIX id', async () => {
    const box = page.getByTestId('graph')
    await poll(() => box.getAttribute('data-layout')).toBe('done')
    // The projection the page draws: its payload budget (16 MiB) holds more of both ATT&CK bundles than the
    // route's default (2 MiB), and a click may land on a node only the larger projection has.
    const current = (await graph('?max_payload_bytes=16777216')).json.result
    const byId = new Map(current.nodes.map((n) => [n.id, n]))
    // The STIX nodes with the most relationships first (drawn largest), clicked where sigma drew them.
    const degree = new Map<string, number>()
    for (const r of current.relationships)
      for (const end of [r.source, r.target]) degree.set(end, (degree.get(end) ?? 0) + 1)
    const candidates = current.nodes
      .filter((n) => n.properties.stix_id !== undefined)
      .map((n) => n.id)
      .sort((a, b) => (degree.get(b) ?? 0) - (degree.get(a) ?? 0))
    const target = await page.evaluate((ids) => {
      const { graphExplorer: handle, document } = globalThis as unknown as PageGlobals
      const canvas = document.querySelector('[data-testid="graph"]')!.getBoundingClientRect()
      for (const id of ids) {
        const p = handle.viewportPosition(id)
        if (p !== null && p.x > 20 && p.y > 20 && p.x < canvas.width - 20 && p.y < canvas.height - 20)
          return { id, x: p.x + canvas.left, y: p.y + canvas.top }
      }
      return null
    }, candidates)
    expect(target).not.toBeNull()
    await page.mouse.click(target!.x, target!.y)
    const stixId = page.getByTestId('stix-id')
    await stixId.waitFor()
    const shownId = await page.getByTestId('record-id').textContent()
    expect(shownId).toMatch(/^node--\d+$/)
    expect(await stixId.textContent()).toBe(byId.get(shownId!)?.properties.stix_id?.value)
    expect(await stixId.textContent()).toMatch(/^[a-z0-9-]+--[0-9a-f-]{36}$/)
    expect(page.url()).toContain(`select=${encodeURIComponent(shownId!)}`)
    await screenshot('node-details')
  })

  it('a seed search highlights its candidates with their rationale', async () => {
    await page.getByPlaceholder('e.g. industrial control system malware').fill('Stuxnet')
    await page.getByRole('button', { name: 'Search', exact: true }).click()
    const results = page.getByTestId('search-results')
    await results.locator('li[data-node-id]').first().waitFor()
    await poll(() => results.getAttribute('data-highlighted')).not.toBe('0')
    expect(Number(await page.getByTestId('graph').getAttribute('data-marked-nodes'))).toBeGreaterThan(0)
    expect(await results.locator('.rationale').first().textContent()).not.toBe('')
    await screenshot('seed-search')
  })

  it('a recall shows its items, reasons and paths, drawn on the graph', async () => {
    await page.getByPlaceholder('what the agent wants to remember').fill('Stuxnet reprograms Siemens')
    await page.getByRole('button', { name: 'Recall', exact: true }).click()
    const paths = page.getByTestId('recall-path')
    await paths.first().waitFor()
    expect(await paths.count()).toBeGreaterThanOrEqual(2)
    expect(await page.getByTestId('recall-results').textContent()).toContain('objective_lexical_match')
    // The walk went from Stuxnet's note to Triton's over their relationship: both ends and the edge are marked.
    expect(await paths.nth(1).textContent()).toContain('→')
    expect(Number(await page.getByTestId('graph').getAttribute('data-marked-nodes'))).toBeGreaterThanOrEqual(
      2,
    )
    expect(
      Number(await page.getByTestId('graph').getAttribute('data-marked-relationships')),
    ).toBeGreaterThanOrEqual(1)
    await screenshot('recall-paths')
  })

  it('a link opens the view it names without clicks: boundary, selection and a diff', async () => {
    const first = boundaries[0]!
    const projection = (await graph(`?boundary_kind=${first.kind}&boundary_id=${first.boundary_id}`)).json
      .result
    const node = projection.nodes.find((n) => n.properties.stix_id !== undefined)!
    const linked = await newPage(context)
    await linked.goto(
      `${server.url}/explorer/?session=${session}&boundary=${first.boundary_id}&compare=current&select=${node.id}#token=${TOKEN}`,
    )
    expect(await drawnCount(linked)).toBe(projection.nodes.length)
    await poll(() => linked.getByTestId('stix-id').textContent()).toBe(node.properties.stix_id?.value)
    await poll(() => linked.getByTestId('diff').textContent()).toMatch(/[1-9][\d,]* added/)
    await screenshot('linked-view-with-diff', linked)
    await linked.close()
  })

  it('the Cypher console shows a table and a graph', async () => {
    await page.getByRole('tab', { name: 'Cypher console' }).click()
    await page
      .getByLabel(/Read query/)
      .fill("MATCH (m:Malware)-[r]->(t) WHERE m.name = 'Stuxnet' RETURN m, r, t LIMIT 20")
    await page.getByRole('button', { name: 'Run', exact: true }).click()
    await poll(() => page.getByTestId('cypher-table').locator('tbody tr').count()).toBeGreaterThan(0)
    await screenshot('cypher-table')
    await page.getByLabel('graph', { exact: true }).check()
    const box = page.getByTestId('cypher-graph')
    await poll(() => box.getAttribute('data-node-count')).not.toBeNull()
    expect(Number(await box.getAttribute('data-node-count'))).toBeGreaterThan(1)
    await screenshot('cypher-graph')
    await page.getByRole('tab', { name: 'Graph', exact: true }).click()
  })

  it('the main controls work from the keyboard', async () => {
    const keyboard = await newPage(context)
    await keyboard.goto(`${server.url}/explorer/#token=${TOKEN}`)
    await keyboard.locator(`[data-session-id="${session}"]`).waitFor()
    // Tab from the top of the page reaches the session list first (the token is already kept for this tab).
    await keyboard.locator('body').focus()
    let focused = ''
    for (let i = 0; i < 10 && focused !== session; i++) {
      await keyboard.keyboard.press('Tab')
      focused = await keyboard.evaluate(
        () =>
          (globalThis as unknown as PageGlobals).document.activeElement?.getAttribute('data-session-id') ??
          '',
      )
    }
    expect(focused).toBe(session)
    await keyboard.keyboard.press('Enter')
    const current = await drawnCount(keyboard)
    await poll(() => keyboard.getByTestId('scrubber').getAttribute('max')).toBe(String(boundaries.length))
    await keyboard.getByTestId('scrubber').focus()
    await keyboard.keyboard.press('Home')
    await expect
      .poll(() => keyboard.getByTestId('graph').getAttribute('data-node-count'))
      .not.toBe(String(current))
    await keyboard.getByPlaceholder('e.g. industrial control system malware').focus()
    await keyboard.keyboard.type('Triton safety')
    await keyboard.keyboard.press('Enter')
    const firstResult = keyboard.getByTestId('search-results').locator('li[data-node-id] button').first()
    await firstResult.waitFor()
    await firstResult.focus()
    await keyboard.keyboard.press('Enter')
    await keyboard.getByTestId('record-id').waitFor()
    // Tabs: arrow keys move between them.
    await keyboard.getByRole('tab', { name: 'Graph', exact: true }).focus()
    await keyboard.keyboard.press('ArrowRight')
    expect(await keyboard.getByRole('tab', { name: 'Cypher console' }).getAttribute('aria-selected')).toBe(
      'true',
    )
    await screenshot('keyboard', keyboard)
    await keyboard.close()
  })

  it('a wrong token shows a clear message and asks for the token again', async () => {
    const other = await browser.newContext({ viewport: { width: 1280, height: 720 } })
    const wrong = await other.newPage()
    await wrong.goto(`${server.url}/explorer/#token=not-the-token`)
    const banner = wrong.getByTestId('message')
    await poll(() => banner.textContent()).toContain('The token was not accepted')
    expect(await wrong.locator('#token-form').isVisible()).toBe(true)
    expect(await banner.textContent()).not.toContain('not-the-token')
    await screenshot('wrong-token', wrong)
    // Typing the right token once is enough.
    await wrong.getByLabel('Service token').fill(TOKEN)
    await wrong.getByLabel('Service token').press('Enter')
    await wrong.getByTestId('sessions').locator(`[data-session-id="${session}"]`).waitFor()
    await other.close()
  })

  it('an unknown session or boundary is said in words, not a blank view', async () => {
    const lost = await newPage(context)
    await lost.goto(
      `${server.url}/explorer/?session=${session}&boundary=timeshot--00000000-0000-4000-8000-000000000000#token=${TOKEN}`,
    )
    await poll(() => lost.getByTestId('message').textContent()).toContain('Not found')
    await lost.goto(`${server.url}/explorer/?session=no-such-session#token=${TOKEN}`)
    await poll(() => lost.getByTestId('message').textContent()).toContain('Not found')
    await lost.close()
  })

  it('had no console errors', () => {
    // A 401/404 answer is logged by Chromium as a failed resource load; everything else must be clean.
    const unexpected = consoleErrors.filter(
      (e) => !/Failed to load resource: the server responded with a status of (401|404)/.test(e),
    )
    expect(unexpected).toEqual([])
  })
})
