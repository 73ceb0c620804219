#!/usr/bin/env node
import { existsSync } from 'node:fs'
import { listPages, readPage } from './extract.js'
import { type ExampleResult, type ExampleStatus, runPages } from './runner.js'

/**
 * Neo4j Cypher manual examples. Usage: DOCS_CYPHER_DIR=DIR node tools/dist/manual-examples/run.js
 * [--verbose] [--filter TEXT] [--pages]. DIR holds the manual's `.adoc` pages (a checkout of neo4j/docs-cypher,
 * or its `modules/ROOT/pages`); nothing of the manual is kept in this repository.
 */
const STATUSES: ExampleStatus[] = ['passed', 'refused', 'wrong', 'unreadable', 'excluded', 'erratum']

function line(label: string, results: ExampleResult[]): string {
  const counts = STATUSES.map((s) => results.filter((r) => r.status === s).length)
  const [passed, refused, wrong, unreadable, excluded, errata] = counts as number[] as [
    number,
    number,
    number,
    number,
    number,
    number,
  ]
  const counted = passed + refused + wrong
  const pct = counted === 0 ? '—' : `${((100 * passed) / counted).toFixed(1)}%`
  return `| ${label} | ${passed} | ${refused} | ${wrong} | ${unreadable} | ${excluded} | ${errata} | ${pct} of ${counted} |`
}

async function main(): Promise<void> {
  const args = process.argv.slice(2)
  const dir = process.env.DOCS_CYPHER_DIR
  if (dir === undefined || dir === '') {
    console.log(
      'manual-examples: skipped, DOCS_CYPHER_DIR is not set (a local checkout of neo4j/docs-cypher)',
    )
    return
  }
  if (!existsSync(dir)) {
    console.error(`manual-examples: directory not found: ${dir}`)
    process.exitCode = 2
    return
  }
  const filterAt = args.indexOf('--filter')
  const filter = filterAt >= 0 ? args[filterAt + 1] : undefined
  const pages = listPages(dir)
    .filter((file) => filter === undefined || file.includes(filter))
    .map((file) => readPage(dir, file))
    .map((page) => ({ ...page, path: page.path.replace(/^(.*\/)?modules\/ROOT\/pages\//, '') }))
  const results = await runPages(pages)
  const header =
    '| | passed | refused | wrong | unreadable | excluded | errata | pass rate |\n|---|---:|---:|---:|---:|---:|---:|---:|'
  const group = (key: (r: ExampleResult) => string): Map<string, ExampleResult[]> => {
    const out = new Map<string, ExampleResult[]>()
    for (const r of results) out.set(key(r), [...(out.get(key(r)) ?? []), r])
    return new Map([...out].sort(([a], [b]) => a.localeCompare(b)))
  }
  if (args.includes('--pages')) {
    console.log(`${header}`)
    for (const [page, list] of group((r) => r.page)) console.log(line(page, list))
    console.log()
  }
  console.log(header)
  for (const [section, list] of group((r) => r.section)) console.log(line(section, list))
  console.log(line('total', results))
  if (args.includes('--verbose')) {
    for (const r of results) {
      if (r.status === 'passed') continue
      console.log(
        `\n${r.status.toUpperCase()} ${r.page}:${r.line}\n  ${r.query.replace(/\n/g, '\n  ')}\n  → ${r.reason}`,
      )
    }
  }
}

await main()
