package knowledge_test

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/app/knowledge"
)

func TestTextProcessingChunksOnParagraphs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	asst := assistant(t, e)
	var paras []string
	for i := 0; i < 14; i++ {
		paras = append(paras, paragraph(fmt.Sprintf("tag%02d", i), 180+i*37))
	}
	text := strings.Join(paras, "\n\n")
	k := addText(t, e, asst, "Manual", text)
	if k.Status != "PENDING" || k.ChunksCount != 0 || k.ChunksProcessed != 0 {
		t.Fatalf("created %+v", k)
	}
	k = settle(t, e, asst, k.ID)
	requireNoError(t, k)
	want := len(knowledge.Chunk(text, knowledge.ChunkSize))
	if k.Status != "PROCESSED" || k.ChunksCount != want || k.ChunksProcessed != want || want < 4 {
		t.Fatalf("processed %+v, want %d chunks", k, want)
	}
	hits := search(t, e, asst, "word1")
	if len(hits) != want {
		t.Fatalf("%d chunks found, want %d", len(hits), want)
	}
	seen := map[int]bool{}
	whole := map[string]bool{}
	for _, p := range paras {
		whole[p] = true
	}
	count := 0
	for _, h := range hits {
		if h.ContentID != k.ID || h.Title != "Manual" || seen[h.Position] || h.Position < 0 || h.Position >= want {
			t.Fatalf("hit %+v", h)
		}
		seen[h.Position] = true
		if n := utf8.RuneCountInString(h.Text); n > knowledge.ChunkSize {
			t.Fatalf("chunk %d has %d characters", h.Position, n)
		}
		for _, p := range strings.Split(h.Text, "\n\n") {
			if !whole[p] {
				t.Fatalf("chunk %d holds a cut paragraph %.40q", h.Position, p)
			}
			count++
		}
	}
	if count != len(paras) {
		t.Fatalf("%d paragraphs in chunks, want %d", count, len(paras))
	}
}

func TestFileUploadsAreProcessed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	asst := assistant(t, e)
	html := `<html><head><title>Doc</title><style>.x{color:red} stylesecretword</style>
		<script>var scriptsecretword = 1;</script></head>
		<body><h1>Animals</h1><p>HTML knows about wombats.</p><noscript>noscriptsecretword</noscript></body></html>`
	cases := []struct {
		file, title, query, mimetype string
		data                         []byte
	}{
		{"notes.txt", "Shipping", "shipping", "text/plain", []byte("Shipping takes three days.\n\nReturns are free.")},
		{"readme.md", "", "kangaroos", "text/markdown", []byte("# Readme\n\nMarkdown mentions kangaroos.\n")},
		{"page.HTML", "Zoo", "wombats", "text/html", []byte(html)},
		{"hello.pdf", "", "pdf", "application/pdf", minimalPDF("Hello from a PDF")},
	}
	for _, c := range cases {
		var k app.KnowledgeContent
		upload(t, e, asst, c.file, c.title, c.data).Expect(201).JSON(&k)
		wantTitle := c.title
		if wantTitle == "" {
			wantTitle = c.file
		}
		if k.Type != "FILE" || k.Status != "PENDING" || k.Title != wantTitle || k.Size != int64(len(c.data)) ||
			k.Content.Type != "FILE" || k.Content.Filename != c.file || k.Content.Mimetype != c.mimetype {
			t.Fatalf("%s: created %+v", c.file, k)
		}
		k = settle(t, e, asst, k.ID)
		requireNoError(t, k)
		if k.Status != "PROCESSED" || k.ChunksCount < 1 || k.ChunksProcessed != k.ChunksCount {
			t.Fatalf("%s: %+v", c.file, k)
		}
		hits := hitsOf(search(t, e, asst, c.query), k.ID)
		if len(hits) != 1 {
			t.Fatalf("%s: search %q: %+v", c.file, c.query, hits)
		}
		if c.file == "hello.pdf" && !strings.Contains(hits[0].Text, "Hello from a PDF") {
			t.Fatalf("pdf chunk %q", hits[0].Text)
		}
		if c.file == "page.HTML" && (strings.Contains(hits[0].Text, "color") || strings.Contains(hits[0].Text, "var ")) {
			t.Fatalf("html chunk carries script or style: %q", hits[0].Text)
		}
	}
	for _, q := range []string{"stylesecretword", "scriptsecretword", "noscriptsecretword"} {
		if hits := search(t, e, asst, q); len(hits) != 0 {
			t.Fatalf("%s was indexed: %+v", q, hits)
		}
	}
	// The list filters by type.
	var files []app.KnowledgeContent
	e.Do("GET", contentsPath(asst)+"?type=FILE", e.AdminKey, nil).Expect(200).JSON(&files)
	if len(files) != len(cases) {
		t.Fatalf("%d files listed", len(files))
	}
}

func TestFileUploadBounds(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	asst := assistant(t, e)
	upload(t, e, asst, "setup.exe", "", []byte("MZ binary")).ExpectError(400, "invalid_argument", "file")
	upload(t, e, asst, "noextension", "", []byte("text")).ExpectError(400, "invalid_argument", "file")
	upload(t, e, asst, "empty.txt", "", nil).ExpectError(400, "invalid_argument", "file")
	e.Send(apitest.Invalid(uploadRequest(t, e, asst, "long.txt", strings.Repeat("t", 256), []byte("x")))).ExpectError(400, "invalid_argument", "title")

	res := upload(t, e, asst, "big.txt", "", bytes.Repeat([]byte("a"), app.MaxKnowledgeFile+1))
	if res.Status != 400 && res.Status != 413 {
		t.Fatalf("over 10 MiB: %d %s", res.Status, res.Body)
	}
	if res.Status == 400 {
		res.ExpectError(400, "invalid_argument", "file")
	}
	// Exactly 10 MiB is accepted; as a PDF that is not one, it fails in processing, with the reason.
	var k app.KnowledgeContent
	upload(t, e, asst, "big.pdf", "", bytes.Repeat([]byte("a"), app.MaxKnowledgeFile)).Expect(201).JSON(&k)
	k = settle(t, e, asst, k.ID)
	if k.Status != "FAILED" || k.Error == nil || !strings.Contains(*k.Error, "PDF") || k.Size != app.MaxKnowledgeFile {
		t.Fatalf("big pdf %+v", k)
	}
	// An upload without a file field.
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	_ = w.WriteField("title", "nothing")
	_ = w.Close()
	req, _ := http.NewRequest("POST", e.Server.URL+contentsPath(asst), &body)
	req.Header.Set("Authorization", "Bearer "+e.AdminKey)
	req.Header.Set("Content-Type", w.FormDataContentType())
	e.Send(apitest.Invalid(req)).ExpectError(400, "invalid_argument", "file")
	// A file that holds no text fails with an error.
	upload(t, e, asst, "blank.txt", "", []byte("  \n\n  ")).Expect(201).JSON(&k)
	k = settle(t, e, asst, k.ID)
	if k.Status != "FAILED" || k.Error == nil || *k.Error == "" || k.ChunksCount != 0 {
		t.Fatalf("blank %+v", k)
	}
	// Uploads to an unknown assistant are 404.
	upload(t, e, "asst_unknown00000000000000", "x.txt", "", []byte("x")).ExpectError(404, "not_found")
}
