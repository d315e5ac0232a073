package sqlite

import "strings"

// prefixed qualifies a column list with a table alias: "a, b" -> "m.a, m.b".
func prefixed(alias, columns string) string {
	parts := strings.Split(columns, ",")
	for i, p := range parts {
		parts[i] = alias + "." + strings.TrimSpace(p)
	}
	return strings.Join(parts, ", ")
}
