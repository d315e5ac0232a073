package knowledge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"time"
)

// Limits bound the extraction of one file or fetched page.
type Limits struct {
	Time  time.Duration // knowledge.max_extract_seconds
	Pages int           // knowledge.max_pages_per_file
	Bytes int64         // knowledge.max_file_bytes: the file, and the text taken from it
	// Memory is the child's heap ceiling; 0: 32 times Bytes, at least 256 MiB (room for the
	// file, its decoded streams and the text).
	Memory int64
}

// Extractor turns untrusted bytes (PDF, HTML) into text in a child process of this same
// binary, killed at Limits.Time. A parser that loops inside a library call cannot be
// stopped from another goroutine, and a fatal error (stack overflow, out of memory) cannot be
// recovered at all; in a child either costs one process, never the server. Plain text and
// Markdown need no parser and stay in process.
type Extractor struct {
	// Exe is the binary to start as the child; empty: this process's own.
	Exe    string
	Limits Limits
	Log    *slog.Logger
	// Owner marks the children (the database's path, for a server): the next start on the
	// same database kills the ones a dead server left (SweepLeftovers). Empty: unmarked.
	Owner string
}

func (x *Extractor) childMemory() int64 {
	if x.Limits.Memory > 0 {
		return x.Limits.Memory
	}
	return max(256<<20, 32*x.Limits.Bytes)
}

// Extract answers the text (and, for HTML, the title and the links resolved against base,
// which may be nil). Its error is the reason to store on the content, naming the limit passed.
func (x *Extractor) Extract(ctx context.Context, mimetype string, data []byte, base *url.URL) (Page, error) {
	if int64(len(data)) > x.Limits.Bytes {
		return Page{}, errFileTooLarge(int64(len(data)), x.Limits.Bytes)
	}
	switch mimetype {
	case "application/pdf", "text/html", "application/xhtml+xml":
	default:
		return Page{Text: string(data)}, nil
	}
	req := childRequest{Mimetype: mimetype, MaxPages: x.Limits.Pages, MaxBytes: x.Limits.Bytes, MemoryBytes: x.childMemory(),
		Parent: os.Getpid()}
	if base != nil {
		req.Base = base.String()
	}
	ans, err := x.runChild(ctx, req, data)
	if err != nil {
		return Page{}, err
	}
	if ans.Error != "" {
		return Page{}, errors.New(ans.Error)
	}
	p := Page{Title: ans.Title, Text: ans.Text}
	for _, l := range ans.Links {
		if u, err := url.Parse(l); err == nil {
			p.Links = append(p.Links, u)
		}
	}
	return p, nil
}

// runChild starts the child with the request, feeds it data and reads its answer, within
// the time limit. A shutdown (ctx ending) kills the child too and answers ctx's error.
func (x *Extractor) runChild(ctx context.Context, req childRequest, data []byte) (childAnswer, error) {
	spec, err := json.Marshal(req)
	if err != nil {
		return childAnswer{}, err
	}
	run, cancel := context.WithTimeout(ctx, x.Limits.Time)
	defer cancel()
	cmd := exec.CommandContext(run, x.exe(), "extract")
	// Nothing of the server's environment (it may hold secrets); one core at most.
	cmd.Env = append(append([]string{childEnv + "=" + string(spec), "GOMAXPROCS=1"}, childExtraEnv...), x.ownerEnv()...)
	cmd.SysProcAttr = childProcAttr() // it dies with the server (Linux)
	cmd.Stdin = bytes.NewReader(data)
	// The answer is the text, JSON-escaped (at most 6 bytes a byte), and a little framing.
	stdout := &cappedBuffer{max: 6*req.MaxBytes + 64<<10, full: cancel}
	stderr := &cappedBuffer{max: 16 << 10}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = time.Second
	runErr := cmd.Run()
	switch {
	case ctx.Err() != nil:
		return childAnswer{}, ctx.Err()
	case runErr != nil && errors.Is(run.Err(), context.DeadlineExceeded):
		return childAnswer{}, fmt.Errorf("%s: it took longer than knowledge.max_extract_seconds (%s)", unreadable(req.Mimetype), x.Limits.Time)
	case stdout.overflow:
		return childAnswer{}, errTextTooLarge(req.MaxBytes)
	}
	var exit *exec.ExitError
	if errors.As(runErr, &exit) && exit.ExitCode() == exitMemory {
		return childAnswer{}, fmt.Errorf("%s: it needs more than %d MiB of memory", unreadable(req.Mimetype), req.MemoryBytes>>20)
	}
	if stderr.Len() > 0 || runErr != nil { // a parser's panic, a crash, or no child at all
		x.log().Warn("knowledge: extraction child", "mimetype", req.Mimetype, "exit", runErr, "stderr", stderr.String())
	}
	var ans childAnswer
	if runErr != nil || json.Unmarshal(stdout.Bytes(), &ans) != nil {
		// A crash the child could not turn into an answer (stack overflow, a fatal error).
		return childAnswer{}, errors.New(unreadable(req.Mimetype))
	}
	return ans, nil
}

// exe is the child's binary. On Linux /proc/self/exe still runs after the file on disk was
// replaced by an upgrade, which os.Executable's path would not.
func (x *Extractor) exe() string {
	if x.Exe != "" {
		return x.Exe
	}
	if _, err := os.Stat("/proc/self/exe"); err == nil {
		return "/proc/self/exe"
	}
	if p, err := os.Executable(); err == nil {
		return p
	}
	return os.Args[0]
}

func (x *Extractor) log() *slog.Logger {
	if x.Log != nil {
		return x.Log
	}
	return slog.New(slog.DiscardHandler)
}

// cappedBuffer keeps at most max bytes. Past that, with full set, it calls full (which
// kills the child) and refuses further writes; without, it drops the rest quietly. Either
// way the child never blocks on a pipe that nobody reads.
type cappedBuffer struct {
	bytes.Buffer
	max      int64
	full     func()
	overflow bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if !b.overflow && int64(b.Len()+len(p)) <= b.max {
		return b.Buffer.Write(p)
	}
	if b.full == nil {
		b.Buffer.Write(p[:max(0, min(len(p), int(b.max)-b.Len()))])
		return len(p), nil
	}
	if !b.overflow {
		b.full()
	}
	b.overflow = true
	return 0, errors.New("knowledge: child output over its cap")
}
