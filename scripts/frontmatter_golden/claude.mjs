// Claude Code's frontmatter reading (v2.1.88), re-typed from the rules in
// ../../../shared/reference/claude-code-memory.md section 4: the memory scanner's
// readFileInRange (first 30 lines, BOM and the \r of each CRLF dropped), the block regex,
// `yaml.parse` with its defaults, and one retry after quoteProblematicValues.
import { parse as parseYaml } from 'yaml'

export const FRONTMATTER_MAX_LINES = 30
export const FRONTMATTER_REGEX = /^---\s*\n([\s\S]*?)---\s*\n?/
const YAML_SPECIAL_CHARS = /[{}[\]*&#!|>%@`]|: /

// What readFileInRange(path, 0, 30) hands the scanner.
export function scannerView(raw, maxLines = FRONTMATTER_MAX_LINES) {
  const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw
  const lines = []
  let start = 0
  let newline
  while (lines.length < maxLines && (newline = text.indexOf('\n', start)) !== -1) {
    let line = text.slice(start, newline)
    if (line.endsWith('\r')) line = line.slice(0, -1)
    lines.push(line)
    start = newline + 1
  }
  if (lines.length < maxLines) {
    let line = text.slice(start)
    if (line.endsWith('\r')) line = line.slice(0, -1)
    lines.push(line)
  }
  return lines.join('\n')
}

export function quoteProblematicValues(frontmatterText) {
  const result = []
  for (const line of frontmatterText.split('\n')) {
    const match = line.match(/^([a-zA-Z_-]+):\s+(.+)$/)
    if (match) {
      const [, key, value] = match
      if (!key || !value) {
        result.push(line)
        continue
      }
      if ((value.startsWith('"') && value.endsWith('"')) ||
          (value.startsWith("'") && value.endsWith("'"))) {
        result.push(line)
        continue
      }
      if (YAML_SPECIAL_CHARS.test(value)) {
        const escaped = value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')
        result.push(`${key}: "${escaped}"`)
        continue
      }
    }
    result.push(line)
  }
  return result.join('\n')
}

const isMapping = parsed => parsed && typeof parsed === 'object' && !Array.isArray(parsed)

// {outcome, data, end}: outcome is "none" (no block), "ok", "retried" (read only after
// quoting) or "error" (the retry failed too); data is what Claude Code keeps ({} unless a
// mapping); end is the length of the matched block in the scanner's view.
export function readFrontmatter(raw) {
  const view = scannerView(raw)
  const match = view.match(FRONTMATTER_REGEX)
  if (!match) return { outcome: 'none', data: {}, end: 0 }
  const block = match[1] || ''
  const end = match[0].length
  try {
    const parsed = parseYaml(block)
    return { outcome: 'ok', data: isMapping(parsed) ? parsed : {}, end }
  } catch {
    try {
      const parsed = parseYaml(quoteProblematicValues(block))
      return { outcome: 'retried', data: isMapping(parsed) ? parsed : {}, end }
    } catch {
      return { outcome: 'error', data: {}, end }
    }
  }
}
