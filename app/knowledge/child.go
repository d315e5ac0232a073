package knowledge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"wsapi/app"
)

// childEnv marks a process started by Extractor as the extraction child; its value is the
// JSON childRequest. The check sits in init, not in a cobra command, so that every binary
// that links this package can be its own child: `app` itself and each `go test` binary,
// without a TestMain per package.
const childEnv = "WSAPI_EXTRACT_CHILD"

// Exit codes of the child beside 0 (an answer on stdout, which may be a failure).
const (
	exitBadRequest = 2
	exitMemory     = 3
	exitOrphan     = 4
)

// childMaxStack replaces Go's 1 GB default: runaway recursion in a parser ends the child
// quickly instead of first eating a gigabyte.
const childMaxStack = 64 << 20

// childRequest is what the parent asks: the bytes come on stdin.
type childRequest struct {
	Mimetype    string `json:"mimetype"`
	Base        string `json:"base,omitempty"` // the page's URL, to resolve links (crawls)
	MaxPages    int    `json:"max_pages"`
	MaxBytes    int64  `json:"max_bytes"`
	MemoryBytes int64  `json:"memory_bytes"`
	// Parent is the server's pid. A child whose parent is another process was orphaned
	// before Pdeathsig took hold (the server died between the fork and the setting) and
	// exits at once.
	Parent int `json:"parent,omitempty"`
}

// childAnswer is what the child prints on stdout: the page, or why there is none.
type childAnswer struct {
	Title string   `json:"title,omitempty"`
	Text  string   `json:"text"`
	Links []string `json:"links,omitempty"`
	Error string   `json:"error,omitempty"`
}

func init() {
	if spec, ok := os.LookupEnv(childEnv); ok {
		os.Exit(childMain(spec, os.Stdin, os.Stdout, os.Stderr))
	}
}

// childMain reads the file on in, extracts it and answers on out. A panic of the parser
// becomes an ordinary failure answer (its stack goes to errw, which the parent logs).
func childMain(spec string, in io.Reader, out, errw io.Writer) int {
	var req childRequest
	if err := json.Unmarshal([]byte(spec), &req); err != nil || req.MaxBytes <= 0 || req.MemoryBytes <= 0 {
		fmt.Fprintf(errw, "extract: bad request %q: %v\n", spec, err)
		return exitBadRequest
	}
	if req.Parent != 0 && os.Getppid() != req.Parent {
		fmt.Fprintf(errw, "extract: parent %d is gone\n", req.Parent)
		return exitOrphan
	}
	debug.SetMemoryLimit(req.MemoryBytes)
	debug.SetMaxStack(childMaxStack)
	go watchMemory(req.MemoryBytes, errw)
	data, err := io.ReadAll(io.LimitReader(in, req.MaxBytes+1))
	if err != nil {
		fmt.Fprintf(errw, "extract: read stdin: %v\n", err)
		return exitBadRequest
	}
	var ans childAnswer
	err = app.Safely(func() (err error) {
		ans, err = extractInChild(req, data)
		return err
	})
	if pe, ok := app.IsPanic(err); ok {
		fmt.Fprintf(errw, "extract: parser panic: %v\n%s", pe.Value, pe.Stack)
		err = errors.New(unreadable(req.Mimetype))
	}
	if err != nil {
		ans = childAnswer{Error: err.Error()}
	}
	if err := json.NewEncoder(out).Encode(ans); err != nil {
		fmt.Fprintf(errw, "extract: write answer: %v\n", err)
		return exitBadRequest
	}
	return 0
}

// extractInChild runs the parser for the file's type.
func extractInChild(req childRequest, data []byte) (childAnswer, error) {
	if int64(len(data)) > req.MaxBytes {
		return childAnswer{}, errFileTooLarge(int64(len(data)), req.MaxBytes)
	}
	if req.Mimetype == "application/pdf" {
		text, err := pdfText(data, req.MaxPages, req.MaxBytes)
		return childAnswer{Text: text}, err
	}
	var base *url.URL
	if req.Base != "" {
		var err error
		if base, err = url.Parse(req.Base); err != nil {
			return childAnswer{}, err
		}
	}
	page, err := parseHTML(bytes.NewReader(data), base)
	if err != nil {
		return childAnswer{}, err
	}
	if int64(len(page.Text)) > req.MaxBytes {
		return childAnswer{}, errTextTooLarge(req.MaxBytes)
	}
	ans := childAnswer{Title: page.Title, Text: page.Text}
	for _, l := range page.Links {
		ans.Links = append(ans.Links, l.String())
	}
	return ans, nil
}

// watchMemory ends the child when its live heap passes limit. debug.SetMemoryLimit alone is
// a target for the collector, not a ceiling: a parser that keeps what it allocates would
// grow past it.
func watchMemory(limit int64, errw io.Writer) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	for range time.Tick(10 * time.Millisecond) {
		metrics.Read(sample)
		if int64(sample[0].Value.Uint64()) > limit {
			fmt.Fprintf(errw, "extract: heap passed %d bytes\n", limit)
			os.Exit(exitMemory)
		}
	}
}

// unreadable is the failure of a file the parser could not handle, by type.
func unreadable(mimetype string) string {
	if mimetype == "application/pdf" {
		return errUnreadablePDF
	}
	return "could not read this HTML"
}

// errFileTooLarge fails a file over knowledge.max_file_bytes before any parser sees it.
func errFileTooLarge(size, maxBytes int64) error {
	return fmt.Errorf("the file is %d bytes, over knowledge.max_file_bytes (%d bytes)", size, maxBytes)
}
