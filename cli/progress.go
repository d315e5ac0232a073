package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

// progress shows how far a long command is on stderr (people watch stderr; stdout stays clean
// for --json). On a terminal it redraws a one-line bar; anywhere else (a log file, CI, a pipe)
// carriage returns would pile up, so it prints a plain line every 10%.
type progress struct {
	w     io.Writer
	label string
	total int
	shown int
	bar   bool
}

func newProgress(w io.Writer, label string, total int) *progress {
	p := &progress{w: w, label: label, total: max(total, 1), shown: -1, bar: isTerminal(w)}
	p.set(0)
	return p
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func (p *progress) set(n int) {
	pct := min(100, n*100/p.total)
	if !p.bar {
		pct -= pct % 10
	}
	if pct == p.shown {
		return
	}
	p.shown = pct
	if !p.bar {
		fmt.Fprintf(p.w, "%s: %d%%\n", p.label, pct)
		return
	}
	filled := pct * 30 / 100
	fmt.Fprintf(p.w, "\r%-9s [%s%s] %3d%%", p.label, strings.Repeat("#", filled), strings.Repeat(" ", 30-filled), pct)
}

func (p *progress) done() {
	if p.bar {
		fmt.Fprintln(p.w)
	}
}
