import { describe, expect, it } from 'vitest'
import { parseCell } from './expected.js'
import { extractPage } from './extract.js'
import { runPages, sortLists } from './runner.js'

// A page written for these tests in the manual's AsciiDoc shape (not taken from the manual).
const PAGE = `= Pets

[source, cypher, role=test-setup]
----
CREATE (:Owner {name: 'Ann'})-[:OWNS {since: 2019}]->(:Pet {name: 'Rex', age: 3});
CREATE (:Owner {name: 'Bo'})
----

.Query
[source, cypher]
----
MATCH (o:Owner) RETURN o.name AS name, COUNT { (o)-->() } AS pets ORDER BY pets DESC
----

.Result
[role="queryresult",options="header,footer",cols="2*<m"]
|===
| name | pets
| "Ann" | 1
| "Bo" | 0
2+d|Rows: 2
|===

.Query
[source, cypher, role=test-fail]
----
RETURN 1/0
----

[role="queryresult",options="header",cols="1*<m"]
|===
| x
| 1
|===

.Query
[source, cypher]
----
MATCH (p:Pet) RETURN p
----

[role="queryresult",options="header,footer",cols="1*<m"]
|===
| p
| +(:Pet {"name": "Rex", "age": 3})+
|Rows: 1
|===

.Query
[source, cypher]
----
MATCH (p:Pet) RETURN p.age AS age
----

[role="queryresult",options="header,footer",cols=""1*<m"]
|===

| age

| 4

d|Rows: 1
|===

.Query
[source, cypher]
----
MATCH (p:Pet) SET p.age = 4;
MATCH (p:Pet) SET p.seen = true
----

[role="queryresult",options="footer",cols="1*<m"]
|===
|(empty result)
d|Rows: 0
|===

.Query
[source, cypher]
----
MATCH (p:Pet) RETURN p.age AS age
----

[role="queryresult",options="header,footer",cols="1*<m"]
|===
| age
| 4
d|Rows: 1
|===
`

describe('manual examples', () => {
  it('extracts setup statements and examples with their tables; failing and table-less queries run as setup', () => {
    const page = extractPage('clauses/pets.adoc', PAGE)
    expect(page.setup.map((s) => s.query)).toEqual([
      "CREATE (:Owner {name: 'Ann'})-[:OWNS {since: 2019}]->(:Pet {name: 'Rex', age: 3})",
      "CREATE (:Owner {name: 'Bo'})",
      'RETURN 1/0',
      'MATCH (p:Pet) SET p.age = 4',
      'MATCH (p:Pet) SET p.seen = true',
    ])
    expect(page.examples.map((e) => e.columns)).toEqual([['name', 'pets'], ['p'], ['age'], ['age']])
    expect(page.examples[0]?.rows).toEqual([
      ['"Ann"', '1'],
      ['"Bo"', '0'],
    ])
    expect(page.examples[0]?.setupBefore).toBe(2)
  })

  it("reads the manual's value notation", () => {
    expect(parseCell('(:B:A {"name": "x", n: 1.0})')).toBe('(:A:B{n:f:1,name:"x"})')
    expect(parseCell('(:A)-[:R {k: 1}]->(:B)<-[:S]-(:C)')).toBe('<(:A)-[:R{k:1}]->(:B)<-[:S]-(:C)>')
    expect(parseCell('point({srid:4326, x:56.7, y:12.78})')).toBe('point(4326;f:56.7;f:12.78)')
    expect(parseCell('[1, <null>, 2.5e1, "a"]')).toBe('[1,null,f:25,"a"]')
    expect(parseCell('2015-07-21T21:40:32.142+01:00[Europe/London]')).toBe(
      't:2015-07-21T21:40:32.142+01:00[Europe/London]',
    )
    expect(parseCell('12:00')).toBe('t:12:00:00')
    expect(parseCell('P-1Y-2M')).toBe('t:P-1Y-2M')
    expect(parseCell('Node[2]{name: "x"}')).toBe('{name:"x"}')
    expect(() => parseCell('Node{name: "x"}')).toThrow()
  })

  it('classifies examples as passed or wrong against the engine', async () => {
    const results = await runPages([extractPage('clauses/pets.adoc', PAGE)])
    expect(results.map((r) => [r.section, r.status])).toEqual([
      ['clauses', 'passed'],
      ['clauses', 'passed'],
      ['clauses', 'wrong'],
      ['clauses', 'passed'],
    ])
  })

  it('sorts the items of nested lists when their order is left open', () => {
    expect(sortLists('{a:["y","x,]"],b:[[2,1],[]]}')).toBe('{a:["x,]","y"],b:[[1,2],[]]}')
    expect(sortLists('[<(:B)<-[:R]-(:A)>,<(:A)-[:R{k:1}]->(:B)>]')).toBe(
      '[<(:A)-[:R{k:1}]->(:B)>,<(:B)<-[:R]-(:A)>]',
    )
  })
})
