// Writes tests/data/frontmatter_golden.jsonl: memory files and what Claude Code makes of
// their frontmatter (claude.mjs: the scanner's view, the block regex, the npm `yaml`
// package with its defaults, the quoting retry). Deterministic: same `yaml` version, same
// file. Run `npm ci && node generate.mjs` here (see README.md).
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'
import { readFrontmatter, quoteProblematicValues, scannerView, FRONTMATTER_REGEX } from './claude.mjs'

process.emitWarning = () => {} // the package warns (unknown tags, collection keys) on stderr

const here = dirname(fileURLToPath(import.meta.url))
const out = process.argv[2] ?? join(here, '..', '..', 'tests', 'data', 'frontmatter_golden.jsonl')
const yamlVersion = JSON.parse(
  readFileSync(join(dirname(createRequire(import.meta.url).resolve('yaml')), '..', 'package.json'), 'utf8')
).version

// --- a seeded random source ---------------------------------------------------------------
let seed = 20260610
function random() { // mulberry32
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const pick = list => list[Math.floor(random() * list.length)]
const chance = p => random() < p

const cases = []
const seen = new Set()
function add(rule, text) {
  if (seen.has(text)) return
  seen.add(text)
  cases.push({ rule, text })
}
const file = (lines, body = 'Body line.\n') => `---\n${lines.join('\n')}\n---\n${body}`
const flat = (description, extra = []) =>
  file([`name: note`, `description: ${description}`, `type: feedback`, ...extra])

// --- values ---------------------------------------------------------------------------------
const RETRY_SPECIALS = ['{', '}', '[', ']', '*', '&', '#', '!', '|', '>', '%', '@', '`']
const NOT_QUOTED = ["'", '"', ',', '?', ':', '-', '=', '~', '<', '(', ')', '\\', '/', ';', '+', '$', '^']
const WORDS = ['Run', 'tests', 'the real DB', 'lease type', 'NEGATIVE signal', 'fix', 'API', 'v2',
  'note', 'config', 'prod', 'user role', 'pnpm', 'deploy']
const CJK = ['测试数据库', '不要模拟', '사용자 역할', '프로젝트 메모', 'テストの方針', '短期リース',
  'Tiếng Việt', 'café', 'niño', 'ação', '用户：高级工程师', '「引用」', '😀 emoji', '𠀀 astral']
const YAML11 = ['yes', 'no', 'Yes', 'NO', 'on', 'off', 'On', 'OFF', 'y', 'n', 'Y', 'N', '~', 'null',
  'Null', 'NULL', 'nUll', 'true', 'True', 'TRUE', 'tRue', 'false', 'False', 'FALSE', '0o17', '0O17',
  '0x1F', '0x1f', '0X1F', '0b101', '017', '08', '-017', '+12', '-0', '1_000', '1,000', '12:34',
  '12:34:56', '190:20:30', '-1:30', '2024-01-01', '2024-1-1', '2024-01-01T10:00:00Z',
  '2024-01-01 10:00:00', '2024-01-01T10:00:00.123+02:00', '1.5', '.5', '5.', '-.5', '+1.5e3', '1e3',
  '1E-3', '1.e2', '.inf', '-.Inf', '+.INF', '.nan', '.NaN', '.NAN', 'nan', 'inf', '1_000.5',
  '0.1e+2', '12345678901234567890', '9007199254740993', '1e400', '0x', '0o', '0o8', '0xG',
  '=', '<<', '.', '-', '+', '..', '0', '00', '0.0', '-0.0', '1e', 'e3']

function phrase() {
  const n = 1 + Math.floor(random() * 4)
  const parts = []
  for (let i = 0; i < n; i++) parts.push(chance(0.2) ? pick(CJK) : pick(WORDS))
  return parts.join(' ')
}
function sprinkle(text, chars, count) { // inserts between code points, never inside a pair
  const s = Array.from(text)
  for (let i = 0; i < count; i++) s.splice(Math.floor(random() * (s.length + 1)), 0, pick(chars))
  return s.join('')
}

// --- 1. the retry's characters --------------------------------------------------------------
for (const c of RETRY_SPECIALS) {
  for (const at of ['start', 'middle', 'end', 'spaced', 'alone', 'double']) {
    const v = { start: `${c}note here`, middle: `note${c}here`, end: `note here${c}`,
      spaced: `note ${c} here`, alone: c, double: `${c}${c}note` }[at]
    add('retry-special-char', flat(v))
    add('retry-special-char', flat(`see: ${v}`)) // `: ` makes the first parse fail
    add('retry-special-char', flat(v, ['other: a: b']))
    add('retry-special-char', flat(`"quoted" ${v}`))
  }
}
for (let i = 0; i < 150; i++) {
  const v = sprinkle(phrase(), [...RETRY_SPECIALS, ': ', ' #'], 1 + Math.floor(random() * 3))
  add('retry-special-char', flat(v, chance(0.5) ? ['why: because: reasons'] : []))
}
for (const v of ['Note: this broke YAML', 'a: b: c', 'key:value: x', 'ends with colon:',
  'time 10:30 today', 'url http://example.com/x', 'a :b', ': leading', 'x:  y', 'x:\ty']) {
  add('retry-colon-space', flat(v))
  add('retry-colon-space', flat(`*${v}`))
}

// --- 2. characters the retry does not quote -------------------------------------------------
for (const c of NOT_QUOTED) {
  for (const v of [`${c}note`, `note${c}`, `no${c}te`, `${c}`, `${c} note ${c}`, `${c}${c}`]) {
    add('retry-leaves-unquoted', flat(v))
    add('retry-leaves-unquoted', flat(v, ['broken: [unclosed']))
    add('retry-leaves-unquoted', flat(`${v} #tag`))
    add('retry-leaves-unquoted', flat(`${v}: more`))
  }
}
for (const v of ['"Short-term lease type" is a NEGATIVE signal', "'single' then more",
  '"a" b', "'a' b", '"unterminated', "'unterminated", 'ends"', "ends'", 'it\'s fine', 'say "hi"',
  '"a", "b"', '? question', '?', 'a, b, c', 'a ? b', 'key :value', '"" empty then text',
  '"with # hash" tail', "'it''s' tail", '"esc \\" q" tail', '"\\t tab" tail']) {
  add('retry-leaves-unquoted', flat(v))
  add('retry-leaves-unquoted', flat(v, ['extra: {broken']))
  add('retry-leaves-unquoted', flat(`${v} & more`))
}

// --- 3. quotes at one end only, or at both --------------------------------------------------
for (const q of ['"', "'"]) {
  const other = q === '"' ? "'" : '"'
  for (const inner of ['a: b', 'x #y', '*bold*', 'plain', '', ' ', 'a\\b', `in${q}side`, `${q}`,
    '[list]', 'x | y', 'it\\"s']) {
    add('quotes-one-end', flat(`${q}${inner}`))
    add('quotes-one-end', flat(`${inner}${q}`))
    add('quotes-one-end', flat(`${q}${inner}${q}`))
    add('quotes-one-end', flat(`${q}${inner}${other}`))
    add('quotes-one-end', flat(`${q}${inner}${q} tail: x`))
    add('quotes-one-end', flat(`${q}${inner}${q}  `))
  }
}

// --- 4. indented keys and keys the retry line regex does not match --------------------------
for (const v of ['a: b', '*x*', 'see #1', '[x', 'plain', '"q" tail']) {
  add('indented-key', file(['name: n', 'metadata:', `  description: ${v}`, '  type: user']))
  add('indented-key', file(['name: n', `  description: ${v}`]))
  add('indented-key', file([` description: ${v}`, 'type: user']))
  add('indented-key', file(['metadata:', `    type: ${v}`, '    node_type: memory']))
  add('indented-key', file(['metadata:', `\ttype: ${v}`]))
  add('retry-key-shape', file([`key1: ${v}`, 'type: user']))
  add('retry-key-shape', file([`my.key: ${v}`, 'type: user']))
  add('retry-key-shape', file([`my key: ${v}`, 'type: user']))
  add('retry-key-shape', file([`my-key_2: ${v}`]))
  add('retry-key-shape', file([`_private-key: ${v}`]))
  add('retry-key-shape', file([`-dash: ${v}`]))
  add('retry-key-shape', file([`名前: ${v}`]))
  add('retry-key-shape', file([`description:${v}`]))
  add('retry-key-shape', file([`description:\t${v}`]))
  add('retry-key-shape', file([`description :${v}`]))
  add('retry-key-shape', file([`- description: ${v}`]))
  add('retry-key-shape', file([`description: ${v}   `]))
  add('retry-key-shape', file([`description: ${v}\t`]))
  add('retry-key-shape', file([`"description": ${v}`]))
}
for (const line of ['description:  ', 'description: \t', 'description:', 'a:\u00a0b: c',
  'a:\u3000*b', 'a: x\u2028y: z', 'a: *b\u2028c', 'a:\u2028*b', 'a: b: c\r', 'A_b-C: [x']) {
  add('retry-key-shape', file([line, 'type: user']))
}

// --- 5. tabs ---------------------------------------------------------------------------------
for (const line of ['name:\tx', 'name: x\t', 'name:\t\tx', '\tname: x', 'name: a\tb', 'name: "a\tb"',
  "name: 'a\tb'", 'name: x #\tc', 'name: x\t#c', 'metadata:\n\ttype: user', 'metadata:\n  \ttype: user',
  'metadata:\n \t type: user', 'name: |\n\tx', 'name: |\n  a\n\tb', 'name: >\n  a\tb', 'name:\t*x',
  'name:\ta: b', 'name: [a,\tb]', 'name: {a:\tb}', 'name:\t', '\t', 'a: 1\n\t\nb: 2',
  'description: ends with tab\t\t', 'key\t: value', 'key:\t"quoted"\t']) {
  add('tabs', file([line, 'type: user']))
  add('tabs', file(['type: user', line]))
}

for (const lines of [['metadata:', '\t', 'type: user'], ['metadata:', '\t', '  type: user'],
  ['metadata:', '\t', '- a'], ['name: a', '\t', 'type: user'], ['name: a', '\t# note', 'type: user'],
  ['metadata:', '\t# note', 'type: user'], ['metadata:', '', '\t', 'type: user'], ['metadata: x', '\t', 'type: user'],
  ['description: |', '  text', '\t', '  more'], ['description: >', '\t', '  text'], ['description: "a', '\t', '  b"'],
  ['description: a', '\t', '  b'], ['tags: [a,', '\t', '  b]'], ['\t', 'name: a'], ['name: a', '\t']]) {
  add('tabs', file(lines))
}

// --- 6. BOM and 7. CRLF ------------------------------------------------------------------------
const BASES = [
  ['name: a', 'description: plain words', 'type: user'],
  ['name: a', 'description: Note: colon', 'type: project'],
  ['name: a', 'description: "q" tail', 'type: feedback'],
  ['name: a', 'metadata:', '  type: reference', '  node_type: memory'],
  ['name: a', 'metadata: ', '  type: user'],
  ['description: *x*'],
  [],
]
for (const base of BASES) {
  const plain = file(base)
  add('bom', '\ufeff' + plain)
  add('bom', '\ufeff\ufeff' + plain)
  add('bom', '\ufeff\n' + plain)
  add('bom', ' \ufeff' + plain)
  add('bom', plain.replace('name: a', 'name: \ufeffa'))
  add('bom', plain.replace('---\n', '---\ufeff\n'))
  add('bom', `---\n\ufeff${base.join('\n')}\n---\n`)
  add('crlf', plain.replaceAll('\n', '\r\n'))
  add('crlf', '\ufeff' + plain.replaceAll('\n', '\r\n'))
  add('crlf', plain.replaceAll('\n', '\r'))
  add('crlf', plain.replaceAll('\n', '\r\r\n'))
  add('crlf', plain.replace('\n', '\r\n'))
  add('crlf', plain.replaceAll('\n', '\n\r'))
  add('crlf', plain.replace(/\n---\n/, '\n---\r\n').replaceAll('a\n', 'a\r\n'))
  add('crlf', plain.replaceAll('\n', ' \r\n'))
  add('crlf', plain.replaceAll('\n', '\r\n').replace(/\r\n$/, '\r'))
}
add('crlf', '---\r\nname: a\r\n---')
add('crlf', '---\r\nname: a\r\n---\r')
add('crlf', '---\r\nname: a\rb\r\n---\r\n')
add('crlf', '---\r\ndescription: |\r\n  line one\r\n  line two\r\n---\r\n')
add('crlf', '---\r\ndescription: "a\r\n  b"\r\n---\r\n')

// --- 8. duplicate keys -------------------------------------------------------------------------
for (const [first, second] of [['type', 'type'], ['name', 'name'], ['type', '"type"'],
  ["'type'", 'type'], ['1', '"1"'], ['1', '1.0'], ['1', '0x1'], ['1', '0o1'], ['1', '+1'],
  ['true', 'True'], ['true', '"true"'], ['null', '~'], ['null', '""'], ['~', 'NULL'],
  ['.nan', '.nan'], ['.inf', '.Inf'], ['0', '-0'], ['12345678901234567890', '12345678901234567891'],
  ['yes', 'Yes'], ['on', 'on'], ['<<', '<<'], ['description', 'Description'], ['a b', 'a  b'],
  ['? a', '? a']]) {
  add('duplicate-key', file([`${first}: one`, `${second}: two`]))
  add('duplicate-key', file(['metadata:', `  ${first}: one`, `  ${second}: two`]))
  add('duplicate-key', file([`m: {${first}: one, ${second}: two}`]))
}
add('duplicate-key', file(['name: a', 'description: one', 'type: user', 'description: two']))
add('duplicate-key', file(['name: a', 'type: user', 'metadata:', '  type: project', 'metadata:', '  type: user']))
add('duplicate-key', file(['name: a', 'description: a: b', 'description: c']))
add('duplicate-key', file(['name: a', 'description: x', 'type: user', 'type: feedback']))
add('duplicate-key', file(['&k type: user', '*k : project']))
add('duplicate-key', file(['a: &k type', '*k : 1', '*k : 2']))
add('duplicate-key', file(['[a]: 1', '[a]: 2']))
add('duplicate-key', file(['{a: 1}: x', '{a: 1}: y']))
add('duplicate-key', file(['- a: 1', '  a: 2']))

// --- 9. YAML 1.1-only scalars, as values and as keys -------------------------------------------
for (const v of YAML11) {
  add('yaml11-scalar', file(['name: n', `description: ${v}`, `type: ${v}`]))
  add('yaml11-scalar', file([`${v}: value`, 'type: user']))
  add('yaml11-scalar', file(['metadata:', `  modified: ${v}`, `  originSessionId: ${v}`]))
  add('yaml11-scalar', file([`list: [${v}, "${v}", '${v}']`]))
  add('yaml11-scalar', file([`quoted: "${v}"`, `single: '${v}'`, `tagged: !!str ${v}`]))
}
for (const tag of ['!!str', '!!int', '!!float', '!!bool', '!!null', '!', '!foo', '!<tag:x>', '!!map',
  '!!seq', '!e!x']) {
  for (const v of ['12', '1.5', 'true', 'yes', '~', 'text', '0x1F', '.inf', '']) {
    add('explicit-tag', file([`description: ${tag} ${v}`, 'type: user']))
  }
  add('explicit-tag', file([`metadata: ${tag}`, '  type: user']))
  add('explicit-tag', file([`list: ${tag} [a, b]`]))
}

// --- 10. nested metadata -------------------------------------------------------------------------
const UUID = '0b0e3b6a-1c1b-4d3e-9f00-123456789abc'
const METADATA_VALUES = [['type', 'feedback'], ['node_type', 'memory'], ['originSessionId', UUID],
  ['originSessionId', 'session-20260526-065224'], ['modified', '2026-03-01T10:00:00.000Z'],
  ['originEpoch', '1767225600'], ['modified', '2026-03-01'], ['type', 'pattern'], ['type', 'handoff'],
  ['type', ''], ['type', '"user"'], ['custom', '[a, b]'], ['custom', '{k: v}']]
for (let i = 0; i < 160; i++) {
  const lines = []
  if (chance(0.9)) lines.push(`name: ${pick(['user-role', '"Title With Spaces"', '用户角色', 'a_b', '""', "''", ''])}`)
  if (chance(0.8)) lines.push(`description: ${chance(0.3) ? sprinkle(phrase(), [...RETRY_SPECIALS, ': ', "'", '"'], 1) : phrase()}`)
  if (chance(0.3)) lines.push(`type: ${pick(['user', 'feedback', 'project', 'reference', 'idea'])}`)
  if (chance(0.2)) lines.push(`originSessionId: ${UUID}`)
  lines.push(pick(['metadata:', 'metadata: ', 'metadata:  ', 'metadata:\t', 'metadata: # comment', 'metadata: &m']))
  const indent = pick(['  ', '  ', '  ', '    ', ' ', '\t'])
  const count = Math.floor(random() * 5)
  for (let j = 0; j < count; j++) {
    const [k, v] = pick(METADATA_VALUES)
    lines.push(`${chance(0.93) ? indent : pick(['', '   ', '  '])}${k}: ${chance(0.1) ? sprinkle(v, [': ', '#', '*'], 1) : v}`)
  }
  if (chance(0.15)) lines.push(`${indent}nested:`, `${indent}${indent}deep: ${pick(['x', 'a: b', '1'])}`)
  if (chance(0.1)) lines.push('other: *m')
  add('nested-metadata', file(lines))
}
add('nested-metadata', file(['name: x', 'metadata:']))
add('nested-metadata', file(['metadata: {type: user, node_type: memory}']))
add('nested-metadata', file(['metadata: [type, user]']))
add('nested-metadata', file(['metadata: user']))
add('nested-metadata', file(['type: user', 'metadata:', '  type: project']))
add('nested-metadata', file(['metadata:', '  type: project', 'type: user']))
add('nested-metadata', file(['metadata:', '- type: user']))
add('nested-metadata', file(['metadata:', '  - type: user']))

// --- 11. empty and blank values -------------------------------------------------------------------
for (const v of ['""', "''", '', ' ', '" "', '"\\t"', "''''", '""""', '~', 'null', '""  # c', '"" x']) {
  add('empty-name', file([`name: ${v}`, 'description: d', 'type: user']))
  add('empty-name', file([`name: ${v}`, 'metadata:', '  node_type: memory']))
}

// --- 12. CJK and other scripts -----------------------------------------------------------------
for (let i = 0; i < 120; i++) {
  const lines = [`name: ${pick(CJK)}`, `description: ${phrase()}${chance(0.4) ? pick(['：', ': ', '#', ' #', '，', '「', '*', '、']) + pick(CJK) : ''}`]
  if (chance(0.7)) lines.push(`type: ${pick(['user', 'feedback', 'project', 'reference', '技术'])}`)
  add('cjk', file(lines, `${pick(CJK)}\n`))
}
for (const c of CJK) add('cjk', file([`${c}: ${c}`]))

// --- 13. multi-line values ------------------------------------------------------------------------
const MULTILINE = [
  ['description: first line', '  continued here'],
  ['description: first line', 'continued at column zero'],
  ['description: first: line', '  continued'],
  ['description: "quoted', '  across lines"'],
  ["description: 'quoted", "  across lines'"],
  ['description: "quoted', 'at column zero"'],
  ['description: |', '  literal', '  block'],
  ['description: |-', '  literal', '', '  block', ''],
  ['description: |+', '  kept', '', ''],
  ['description: >', '  folded', '  block', '', '  para'],
  ['description: >-', '  folded'],
  ['description: |2', '   indented'],
  ['description: |', 'not indented'],
  ['description: >', '  a: b', '  *c*'],
  ['description:', '  on the next line'],
  ['description:', '  first', '  second'],
  ['description:', '  - a', '  - b'],
  ['description:', '- a', '- b'],
  ['description: a', '  - b'],
  ['description: a # c', '  d'],
  ['description: a', '  #comment', '  b'],
  ['description: a', '', '  b'],
  ['description: a', '  b: c'],
  ['description: |', '  a', ' b'],
  ['description: "a\\', '  b"'],
  ['description: "a \\n b"'],
  ['description: "\\u00e9\\x41\\/\\N\\_\\L\\P\\e\\0"'],
  ['description: "bad \\q escape"'],
  ['description: "\\U0001F600"'],
]
for (const lines of [
  ['description: "a long description', 'continued at column zero"'],
  ['description: "a long description', ' continued one space in"'],
  ['metadata:', '  description: "a long', '  continued"'],
  ['metadata:', '  description: "a long', '   continued"'],
  ["description: 'a long", "continued'"],
  ['- "item', 'continued"'],
  ['- "item', '  continued"'],
  ['tags: [a,', 'b]'],
  ['tags: [a,', ' b]'],
  ['tags: [a,', ']'],
  ['metadata:', '  tags: [a,', '  ]'],
  ['metadata:', '  tags: {a: 1,', ' }'],
  ['description: "quoted"#comment'],
  ["description: 'quoted'#comment"],
  ['description: [a]#comment'],
  ['description: "quoted" #comment'],
]) {
  add('multiline', file([...lines, 'type: user']))
}
for (const lines of MULTILINE) {
  add('multiline', file([...lines, 'type: user']))
  add('multiline', file(['name: n', ...lines]))
}

// --- 14. anchors and aliases -----------------------------------------------------------------------
for (const lines of [
  ['name: &n note', 'description: *n'],
  ['description: *important* note'],
  ['description: *undefined'],
  ['description: &a'],
  ['description: & a'],
  ['description: &a x &b y'],
  ['a: &x 1', 'b: &x 2', 'c: *x'],
  ['base: &b {type: user}', 'metadata: *b'],
  ['base: &b', '  type: user', 'metadata: *b'],
  ['<<: *b'],
  ['base: &b {type: user}', '<<: *b'],
  ['list: &l [a, b]', 'copy: *l'],
  ['name: *n', 'other: &n x'],
  ['a: &x', 'b: *x'],
  ['description: text &anchor'],
  ['description: text *alias'],
  ['description: &anchor text'],
  ['description: !tag text'],
  ['description: !!str *x'],
  ['&k key: value'],
  ['description: ***'],
  ['description: **bold** text'],
  ['description: & text'],
  ['description: &mdash; a dash'],
  ['description: &a.b value', 'other: *a.b'],
  ['description: &a@b value'],
  ['description: &&note'],
  ['description: *a.b'],
  ['a: &x:y value', 'b: *x:y'],
]) {
  add('anchors', file(lines))
  add('anchors', file([...lines, 'type: user']))
}

// --- 15. the block regex and the scanner's 30 lines ----------------------------------------------
for (const opening of ['---', '--- ', '---  \t', '---\u00a0', '---\u3000', '---\ufeff', '---\u2028',
  '---\u0085', '---\u001c', '----', '-- -', ' ---', '---x', '---\n', '---\n\n', '---\u000b']) {
  add('block-regex', `${opening}\nname: a\ntype: user\n---\nbody\n`)
}
for (const closing of ['---', '--- ', '---\t', '----', '---x', '--- x', '---\u00a0', '---\u0085',
  ' ---', 'x---', '---\n', '---\n\n\n', '---   \n  \n', '...']) {
  add('block-regex', `---\nname: a\ntype: user\n${closing}\nbody\n`)
  add('block-regex', `---\nname: a\ntype: user\n${closing}`)
}
for (const text of ['---\n---\nbody\n', '---\n---', '---\n\n---\n', '---\n', '---', '', 'no block\n',
  '\n---\nname: a\n---\n', '---\nname: a---b\n---\n', '---\nname: a\n', '---\ndescription: x --- y\n---\n',
  '---\nname: a\n--- \ntype: user\n---\n', '---\r\n---\r\n', '---\nname: a\n---\n---\nname: b\n---\n',
  '---name: a\n---\n', '--- \t \n\t\nname: a\n---\n']) {
  add('block-regex', text)
}
for (const length of [27, 28, 29, 30, 31]) {
  const lines = ['name: long', 'description: many lines']
  while (lines.length < length - 2) lines.push(`key${lines.length}: value`)
  const text = `---\n${lines.join('\n')}\n---\nbody\n`
  add('scanner-30-lines', text)
  add('scanner-30-lines', text.replaceAll('\n', '\r\n'))
  add('scanner-30-lines', '\ufeff' + text)
  add('scanner-30-lines', text.replace(/\nbody\n$/, ''))
  add('scanner-30-lines', text.replace(/\nbody\n$/, '\n'))
  add('scanner-30-lines', text.replace(/\nbody\n$/, '  \n'))
}

// --- 16. blocks that are not a mapping -------------------------------------------------------------
for (const block of ['- a\n- b', 'just a sentence', '42', '"quoted"', '# only a comment', '...',
  '~', '[a, b]', '{}', '[]', '|\n  text', 'a', 'a\nb', '? a', ': a', '- a: b', '!!map {}',
  'true', '0x10', '&a', '*a', '%YAML 1.2', '%TAG ! tag:x,2024:', 'a: 1\n...\nb: 2', 'a: 1\n...\n']) {
  add('not-a-mapping', file([block]))
}

// --- 17. characters other YAML readers refuse or break lines on ------------------------------------
for (const c of ['\u0000', '\u0001', '\u0007', '\u0008', '\u000b', '\u000c', '\u000e', '\u001b',
  '\u001c', '\u001f', '\u007f', '\u0080', '\u0085', '\u009f', '\u00a0', '\u2028', '\u2029', '\ufeff',
  '\ufffe', '\uffff', '\ue000', '\u200b', '\u3000']) {
  add('odd-characters', file([`name: a${c}b`, 'type: user']))
  add('odd-characters', file([`name: ${c}b`, 'type: user']))
  add('odd-characters', file([`name: "a${c}b"`, 'type: user']))
  add('odd-characters', file([`name: a${c}`, 'type: user']))
  add('odd-characters', file([`name: a: ${c}b`, 'type: user']))
  add('odd-characters', file([`n${c}: a`, 'type: user']))
  add('odd-characters', file(['name: a', `${c}type: user`]))
}

// --- 18. flow collections and broken syntax ----------------------------------------------------------
for (const v of ['[a, b]', '[a, b', '{a: b}', '{a: b', '{a, b}', '[a: b]', '[a:b]', '{a:b}', '{"a":b}',
  '[[a]]', '[a, [b, c]]', '{a: [b]}', '[a,]', '[,a]', '{a: b,}', '[a b]', '{a: b c}', '[a #c]',
  '[a, b] tail', '{a: b} tail', '[', ']', '{', '}', '[]', '{}', '[ ]', '[a,\n  b]', '{a: 1, a: 2}',
  '[? a : b]', '[a: b: c]', '[http://x]', '{http://x: y}', '[-a]', '[- a]', '["a]', "['a]"]) {
  add('flow', file([`description: ${v}`, 'type: user']))
  add('flow', file(['metadata:', `  tags: ${v}`]))
}
for (const lines of [['name x'], ['name'], [':'], [': x'], ['name: a', 'junk'], ['name: a', '  junk'],
  ['a:b'], ['a :b'], ['a : b'], ['a  : b'], ['"a"b: c'], ['a: b', ' c: d'], ['a:', ' - b', '- c'],
  ['- a', 'b: c'], ['a: - b'], ['a: -b'], ['a: ? b'], ['a: : b'], ['a: b :c'], ['a: b:'],
  ['a: b #c: d'], ['a: "b" #c'], ['a: "b"#c'], ['a: "b"c'], ["a: 'b'c"], ['a: `b`'], ['a: @b'],
  ['a: %b'], ['a: b%'], ['a: |x'], ['a: >x'], ['a: !x'], ['a: &'], ['a: *'], ['a: #x'], ['a:#x'],
  ['a: b # c # d'], ['? a', ': b'], ['? a'], ['a: {b: c}: d'], ['a: [b]: c'],
  [`${'k'.repeat(1030)}: v`], [`k: ${'v'.repeat(2000)}`], ['"a\nb": c']]) {
  add('broken-syntax', file(lines))
  add('broken-syntax', file(['name: n', ...lines, 'type: user']))
}

// --- 19. random memories in the shapes real stores hold ----------------------------------------------
const FRAGMENTS = [
  () => `name: ${pick(['user-role', 'feedback_testing', '"Quoted Title"', pick(CJK), 'a b c', "it's"])}`,
  () => `description: ${phrase()}`,
  () => `description: ${sprinkle(phrase(), [...RETRY_SPECIALS, ...NOT_QUOTED, ': ', ' #'], 1 + Math.floor(random() * 2))}`,
  () => `description: "${phrase()}" ${phrase()}`,
  () => `description: '${phrase()}'`,
  () => `type: ${pick(['user', 'feedback', 'project', 'reference', 'pattern', 'technique', 'state', 'handoff', ''])}`,
  () => `originSessionId: ${pick([UUID, 'session-20260526-065224', '1234'])}`,
  () => `modified: ${pick(['2026-03-01T10:00:00.000Z', '2026-03-01', '12:34'])}`,
  () => pick(['metadata:', 'metadata: ']),
  () => `  ${pick(['type', 'node_type', 'originSessionId', 'modified', 'custom'])}: ${pick(['feedback', 'memory', UUID, '2026-03-01T10:00:00.000Z', 'a: b', '*x*', '#tag'])}`,
  () => `${pick(['tags', 'keywords'])}: ${pick(['[a, b]', 'a, b', '[a, b', '- a', '#a #b'])}`,
  () => pick(YAML11.map(v => `${pick(['enabled', 'priority', 'version', 'when'])}: ${v}`)),
  () => pick(['# a comment', '', '  ', '\t', '...']),
]
for (let i = 0; i < 700; i++) {
  const lines = []
  const count = 1 + Math.floor(random() * 6)
  for (let j = 0; j < count; j++) lines.push(pick(FRAGMENTS)())
  let text = file(lines, chance(0.5) ? `${phrase()}\n` : '')
  if (chance(0.08)) text = '\ufeff' + text
  if (chance(0.08)) text = text.replaceAll('\n', '\r\n')
  add('random-memory', text)
}

// --- evaluate and write -----------------------------------------------------------------------------
const tagged = value => JSON.stringify(value, (_key, v) =>
  typeof v === 'number' && !Number.isFinite(v) ? { $number: String(v) } : v)
const lines = [JSON.stringify({ meta: { yaml: yamlVersion, node: process.version, cases: cases.length } })]
const counts = {}
for (const { rule, text } of cases) {
  const { outcome, data, end } = readFrontmatter(text)
  const record = { rule, text, outcome, data: JSON.parse(tagged(data)), end }
  if (outcome === 'retried' || outcome === 'error') {
    const block = scannerView(text).match(FRONTMATTER_REGEX)[1]
    record.quoted = quoteProblematicValues(block)
  }
  counts[`${rule} ${outcome}`] = (counts[`${rule} ${outcome}`] ?? 0) + 1
  lines.push(JSON.stringify(record))
}
mkdirSync(dirname(out), { recursive: true })
writeFileSync(out, lines.join('\n') + '\n')
console.log(`${cases.length} cases (yaml ${yamlVersion}) -> ${out}`)
for (const key of Object.keys(counts).sort()) console.log(`  ${key}: ${counts[key]}`)
