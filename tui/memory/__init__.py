"""The store model: frontmatter, the index and its loaded cut, findings."""
