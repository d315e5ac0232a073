package cli

import (
	"fmt"
	"io"
	"strings"
)

// progress draws a one-line bar on stderr for long commands (people watch stderr; stdout
// stays clean for --json).
type progress struct {
	w     io.Writer
	label string
	total int
	shown int
}

func newProgress(w io.Writer, label string, total int) *progress {
	p := &progress{w: w, label: label, total: max(total, 1), shown: -1}
	p.set(0)
	return p
}

func (p *progress) set(n int) {
	pct := min(100, n*100/p.total)
	if pct == p.shown {
		return
	}
	p.shown = pct
	filled := pct * 30 / 100
	fmt.Fprintf(p.w, "\r%-9s [%s%s] %3d%%", p.label, strings.Repeat("#", filled), strings.Repeat(" ", 30-filled), pct)
}

func (p *progress) done() { fmt.Fprintln(p.w) }
