package knowledge_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"wsapi/app/knowledge"
)

// paragraph makes a paragraph of about n characters of words, tagged so it can be found.
func paragraph(tag string, n int) string {
	var b strings.Builder
	b.WriteString(tag)
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, " word%d", i%10)
	}
	return b.String()
}

func TestChunkKeepsParagraphsWhole(t *testing.T) {
	t.Parallel()
	var paras []string
	for i := 0; i < 25; i++ {
		paras = append(paras, paragraph(fmt.Sprintf("para%02d", i), 150+i*20))
	}
	chunks := knowledge.Chunk(strings.Join(paras, "\n\n"), knowledge.ChunkSize)
	var got []string
	for i, c := range chunks {
		if n := utf8.RuneCountInString(c); n > knowledge.ChunkSize {
			t.Fatalf("chunk %d has %d characters", i, n)
		}
		parts := strings.Split(c, "\n\n")
		// Greedy: a chunk is closed only when the next paragraph would not fit.
		if i < len(chunks)-1 {
			next := strings.Split(chunks[i+1], "\n\n")[0]
			if utf8.RuneCountInString(c)+2+utf8.RuneCountInString(next) <= knowledge.ChunkSize {
				t.Fatalf("chunk %d (%d chars) closed although the next paragraph (%d) fits", i, len(c), len(next))
			}
		}
		got = append(got, parts...)
	}
	if strings.Join(got, "|") != strings.Join(paras, "|") {
		t.Fatalf("paragraphs were cut, merged or reordered:\n%q\nwant\n%q", got, paras)
	}
	if len(chunks) < 5 {
		t.Fatalf("%d chunks for %d paragraphs", len(chunks), len(paras))
	}
}

func TestChunkCutsOnlyLongParagraphs(t *testing.T) {
	t.Parallel()
	long := paragraph("long", 2600)
	chunks := knowledge.Chunk("short one\n\n"+long+"\n\nshort two", knowledge.ChunkSize)
	if len(chunks) < 3 {
		t.Fatalf("chunks %q", chunks)
	}
	var words []string
	for i, c := range chunks {
		if n := utf8.RuneCountInString(c); n > knowledge.ChunkSize {
			t.Fatalf("chunk %d has %d characters", i, n)
		}
		for _, p := range strings.Split(c, "\n\n") {
			words = append(words, strings.Fields(p)...)
		}
	}
	want := strings.Fields("short one " + long + " short two")
	if strings.Join(words, " ") != strings.Join(want, " ") {
		t.Fatal("a long paragraph lost or split words when cut at spaces")
	}
	// Without spaces the cut falls at the size itself.
	solid := strings.Repeat("x", 2500)
	chunks = knowledge.Chunk(solid, knowledge.ChunkSize)
	if len(chunks) != 3 || len(chunks[0]) != 1000 || len(chunks[1]) != 1000 || len(chunks[2]) != 500 {
		t.Fatalf("solid text chunks of %d", len(chunks))
	}
}

func TestChunkCountsCharactersAndNormalizesBreaks(t *testing.T) {
	t.Parallel()
	a, b := strings.Repeat("é", 600), strings.Repeat("ü", 600)
	chunks := knowledge.Chunk(a+"\r\n\r\n"+b+"\n\n\n\n   \n\n", knowledge.ChunkSize)
	if len(chunks) != 2 || chunks[0] != a || chunks[1] != b {
		t.Fatalf("got %d chunks", len(chunks))
	}
	if got := knowledge.Chunk(" \n\n \r\n\r\n", knowledge.ChunkSize); len(got) != 0 {
		t.Fatalf("blank text gave %q", got)
	}
	small := knowledge.Chunk("one\n\ntwo\r\n\r\nthree", knowledge.ChunkSize)
	if len(small) != 1 || small[0] != "one\n\ntwo\n\nthree" {
		t.Fatalf("small text chunks %q", small)
	}
}

// minimalPDF builds a one-page PDF with one text object, with a correct xref table.
func minimalPDF(text string) []byte {
	stream := fmt.Sprintf("BT /F1 24 Tf 72 720 Td (%s) Tj ET", text)
	return onePagePDF(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(stream), stream))
}

func TestPDFTextReadsAHandMadePDF(t *testing.T) {
	t.Parallel()
	data := minimalPDF("Hello from a PDF")
	if len(data) > 1000 {
		t.Fatalf("the PDF weighs %d bytes", len(data))
	}
	x := testExtractor()
	page, err := x.Extract(context.Background(), "application/pdf", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.Text, "Hello from a PDF") {
		t.Fatalf("text %q", page.Text)
	}
	_, err = x.Extract(context.Background(), "application/pdf", []byte("%PDF-1.4\nnot really"), nil)
	if err == nil || !strings.HasPrefix(err.Error(), "could not read this PDF") {
		t.Fatalf("a broken PDF: %v", err)
	}
}
