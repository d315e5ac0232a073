package knowledge_test

import (
	"bytes"
	"compress/zlib"
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"wsapi/app/knowledge"
)

// testExtractor runs the extraction child as this test binary (the child's init hook makes
// any binary linking the package able to be it), with the configuration's defaults.
func testExtractor() *knowledge.Extractor {
	return &knowledge.Extractor{Limits: knowledge.Limits{Time: 20 * time.Second, Pages: 1000, Bytes: 10 << 20}}
}

// fixture reads a file of testdata/pdf (copied from shared/fixtures/pdf).
func fixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "pdf", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestExtractorFailsHostilePDFs: each fixture that crashed or hung the server in process ends
// in a plain failure, quickly.
func TestExtractorFailsHostilePDFs(t *testing.T) {
	x := testExtractor()
	for _, c := range []struct{ file, want string }{
		{"panic.pdf", "could not read this PDF"},
		{"count_huge.pdf", "it has 2000000000 pages, over knowledge.max_pages_per_file (1000)"},
		{"kids_notarray.pdf", ""},
		{"content_bad.pdf", ""},
	} {
		start := time.Now()
		page, err := x.Extract(context.Background(), "application/pdf", fixture(t, c.file), nil)
		took := time.Since(start)
		t.Logf("%s: %v in %v (text %q)", c.file, err, took, page.Text)
		if took > 5*time.Second {
			t.Errorf("%s took %v", c.file, took)
		}
		if c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: error %v, want %q", c.file, err, c.want)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "could not read this PDF") {
			t.Errorf("%s: error %q does not say the PDF could not be read", c.file, err)
		}
	}
}

// TestExtractorKillsAHangingParse: with the page limit lifted, the PDF that claims two billion
// pages keeps the parser busy; the child is killed at the time limit and the failure names it.
func TestExtractorKillsAHangingParse(t *testing.T) {
	x := testExtractor()
	x.Limits.Time, x.Limits.Pages = 700*time.Millisecond, 1<<31-1
	start := time.Now()
	_, err := x.Extract(context.Background(), "application/pdf", fixture(t, "count_huge.pdf"), nil)
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "took longer than knowledge.max_extract_seconds (700ms)") {
		t.Fatalf("error %v", err)
	}
	if took < 700*time.Millisecond || took > 5*time.Second {
		t.Fatalf("answered after %v", took)
	}
}

// TestExtractorStopsAtShutdown: a cancelled context kills the child at once and answers the
// context's error, so the content is left to its lease rather than marked FAILED.
func TestExtractorStopsAtShutdown(t *testing.T) {
	x := testExtractor()
	x.Limits.Pages = 1<<31 - 1
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	_, err := x.Extract(ctx, "application/pdf", fixture(t, "count_huge.pdf"), nil)
	if err != context.Canceled || time.Since(start) > 5*time.Second {
		t.Fatalf("error %v after %v", err, time.Since(start))
	}
}

// deflatedPDF is a one-page PDF whose compressed content stream shows text n times: a small
// file with a large text.
func deflatedPDF(text string, n int) []byte {
	var raw bytes.Buffer
	for range n {
		fmt.Fprintf(&raw, "BT /F1 12 Tf 72 720 Td (%s) Tj ET\n", text)
	}
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	_, _ = w.Write(raw.Bytes())
	_ = w.Close()
	return onePagePDF(fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", z.Len(), z.Bytes()))
}

// onePagePDF is a one-page PDF in Helvetica whose page shows contents, the content stream
// object (its dictionary and its stream).
func onePagePDF(contents string) []byte {
	return assemble([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		contents,
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
	})
}

// assemble writes objects 1..n as a PDF with a correct cross-reference table, object 1 the
// catalog.
func assemble(objects []string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objects))
	for i, o := range objects {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objects)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objects)+1, xref)
	return b.Bytes()
}

// TestExtractorSizeAndMemoryLimits: a file over the size limit never reaches a parser; a
// small file whose text passes it fails naming it; a child over its heap ceiling is ended.
func TestExtractorSizeAndMemoryLimits(t *testing.T) {
	x := testExtractor()
	x.Limits.Bytes = 64 << 10
	_, err := x.Extract(context.Background(), "text/plain", bytes.Repeat([]byte("a"), 64<<10+1), nil)
	if err == nil || err.Error() != "the file is 65537 bytes, over knowledge.max_file_bytes (65536 bytes)" {
		t.Fatalf("large file: %v", err)
	}
	if p, err := x.Extract(context.Background(), "text/plain", bytes.Repeat([]byte("a"), 64<<10), nil); err != nil || len(p.Text) != 64<<10 {
		t.Fatalf("file at the limit: %v", err)
	}
	bomb := deflatedPDF("many words of text", 20000)
	if len(bomb) > 8<<10 {
		t.Fatalf("the compressed PDF weighs %d bytes", len(bomb))
	}
	_, err = x.Extract(context.Background(), "application/pdf", bomb, nil)
	if err == nil || err.Error() != "the extracted text is larger than knowledge.max_file_bytes (65536 bytes)" {
		t.Fatalf("text over the limit: %v", err)
	}
	x.Limits.Bytes, x.Limits.Memory = 10<<20, 4<<20
	html := "<html><body>" + strings.Repeat("<p>paragraph of words</p>", 300000) + "</body></html>"
	_, err = x.Extract(context.Background(), "text/html", []byte(html), nil)
	if err == nil || err.Error() != "could not read this HTML: it needs more than 4 MiB of memory" {
		t.Fatalf("memory: %v", err)
	}
}

// TestExtractorHTML: HTML goes through the child too and comes back with title and links.
func TestExtractorHTML(t *testing.T) {
	base, _ := url.Parse("https://docs.example.com/guide/")
	p, err := testExtractor().Extract(context.Background(), "text/html",
		[]byte(`<html><head><title>Guide</title></head><body><p>Read the manual.</p><a href="next">n</a></body></html>`), base)
	if err != nil || p.Title != "Guide" || !strings.Contains(p.Text, "Read the manual.") ||
		len(p.Links) != 1 || p.Links[0].String() != "https://docs.example.com/guide/next" {
		t.Fatalf("page %+v, %v", p, err)
	}
}
