package knowledge_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"wsapi/app"
	"wsapi/app/apitest"
	"wsapi/cli"
)

// pdfObjects are the objects of small PDFs for mutants to start from: one page, three pages
// in a nested tree, one page with an array of contents.
var pdfObjects = [][]string{
	{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		"<< /Length 44 >>\nstream\nBT /F1 12 Tf 72 712 Td (Hello mutant) Tj ET\nendstream",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
	},
	{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R 6 0 R] /Count 3 >>",
		"<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		"<< /Length 52 >>\nstream\nBT /F1 12 Tf 72 712 Td [(Tree) -250 (pages)] TJ ET\nendstream",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>",
		"<< /Type /Pages /Parent 2 0 R /Kids [7 0 R 8 0 R] /Count 2 >>",
		"<< /Type /Page /Parent 6 0 R /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		"<< /Type /Page /Parent 6 0 R /Contents [4 0 R 4 0 R] /Resources << /Font << /F1 5 0 R >> >> >>",
	},
}

// mutate makes a broken variant of a PDF: flipped bytes, cut or repeated spans, numbers
// swapped for huge or negative ones, structure keywords changed. Mutants of object lists are
// assembled with a correct cross-reference table, so the parser gets past it into the objects
// and pages; one in four mutates a whole file's bytes instead. Deterministic for a seed.
func mutate(r *rand.Rand, files [][]byte) []byte {
	if r.IntN(4) == 0 {
		return mutateBytes(r, files[r.IntN(len(files))])
	}
	objs := slices.Clone(pdfObjects[r.IntN(len(pdfObjects))])
	for range 1 + r.IntN(2) {
		i := r.IntN(len(objs))
		objs[i] = string(mutateBytes(r, []byte(objs[i])))
	}
	return assemble(objs)
}

func mutateBytes(r *rand.Rand, base []byte) []byte {
	b := bytes.Clone(base)
	for range 1 + r.IntN(3) {
		if len(b) == 0 {
			return []byte("%")
		}
		switch r.IntN(6) {
		case 0: // flip a few bytes
			for range 1 + r.IntN(4) {
				b[r.IntN(len(b))] = byte(r.IntN(256))
			}
		case 1: // cut short
			b = b[:1+r.IntN(len(b))]
		case 2: // repeat a span
			i := r.IntN(len(b))
			j := min(len(b), i+r.IntN(200))
			b = append(b[:j:j], append(bytes.Clone(b[i:j]), b[j:]...)...)
		case 3, 4: // a number becomes huge or negative
			huge := []string{"2147483647", "-1", "99999999999999999999", "0", "1e308", "-2147483648", "3"}
			b = replaceNth(b, r, func(s string) bool { _, err := strconv.Atoi(s); return err == nil }, huge[r.IntN(len(huge))])
		case 5: // a keyword or name changes
			words := []string{"obj", "stream", "endstream", "/Kids", "/Count", "/Pages", "/Page", "/Parent", "R", "Tj", "TJ", "Tf", "BT", "[", "]", "<<", ">>", "(", ")"}
			b = bytes.Replace(b, []byte(words[r.IntN(len(words))]), []byte(words[r.IntN(len(words))]), 1+r.IntN(3))
		}
	}
	return b
}

// replaceNth swaps one whitespace-separated token that match accepts for with.
func replaceNth(b []byte, r *rand.Rand, match func(string) bool, with string) []byte {
	fields := bytes.Fields(b)
	var hits []int
	for i, f := range fields {
		if match(string(f)) {
			hits = append(hits, i)
		}
	}
	if len(hits) == 0 {
		return b
	}
	target := fields[hits[r.IntN(len(hits))]]
	i := bytes.Index(b, target)
	return append(b[:i:i], append([]byte(with), b[i+len(target):]...)...)
}

// pending counts an assistant's contents still PENDING or PROCESSING.
func pending(t *testing.T, e *apitest.Env, asst string) int {
	t.Helper()
	n := 0
	for _, st := range []string{"PENDING", "PROCESSING"} {
		res := e.Do("GET", contentsPath(asst)+"?take=1&status="+st, e.AdminKey, nil).Expect(200)
		c, _ := strconv.Atoi(res.Header.Get("pagination-count"))
		n += c
	}
	return n
}

// hostileMutants is how many mutants of good and bad PDFs the test uploads. It was 200: each
// is parsed in a child process (a re-run of the race-built test binary in CI), and the test
// runs alone, so they were 105 s of app/knowledge's 320 s under -race (load average 25). 80
// still crash the parser in dozens of ways (about half of them) and read some.
const hostileMutants = 80

// TestHostilePDFsFailWithoutHurtingTheServer uploads the four PDFs that crashed or hung the
// server and hostileMutants mutants of good and bad PDFs. The server keeps answering at once, every
// upload ends PROCESSED or FAILED within its limits, and other organizations' knowledge is
// still processed afterwards.
func TestHostilePDFsFailWithoutHurtingTheServer(t *testing.T) {
	const limit = 2 * time.Second
	e := newEnv(t, func(c *cli.Config) { c.Knowledge.MaxExtractSeconds = int(limit / time.Second) })
	asst := assistant(t, e)
	fixtures := map[string][]byte{}
	for _, f := range []string{"panic.pdf", "count_huge.pdf", "kids_notarray.pdf", "content_bad.pdf"} {
		fixtures[f] = fixture(t, f)
	}
	ids := map[string]string{}
	for name, data := range fixtures {
		var k app.KnowledgeContent
		upload(t, e, asst, name, "", data).Expect(201).JSON(&k)
		ids[k.ID] = name
	}
	files := [][]byte{minimalPDF("Seed text of a good PDF"), deflatedPDF("compressed words", 50),
		fixtures["panic.pdf"], fixtures["count_huge.pdf"], fixtures["kids_notarray.pdf"], fixtures["content_bad.pdf"]}
	r := rand.New(rand.NewPCG(12, 2026))
	for i := range hostileMutants {
		var k app.KnowledgeContent
		name := fmt.Sprintf("mutant%03d.pdf", i)
		upload(t, e, asst, name, "", mutate(r, files)).Expect(201).JSON(&k)
		ids[k.ID] = name
	}
	// While the processor works through them, the API answers at once.
	start := time.Now()
	var slowest time.Duration
	for pending(t, e, asst) > 0 {
		if time.Since(start) > time.Duration(len(ids))*limit {
			t.Fatalf("%d contents still pending after %v", pending(t, e, asst), time.Since(start))
		}
		t0 := time.Now()
		e.Do("GET", "/healthz", "", nil).Expect(200)
		e.Do("GET", "/orgs/c", e.AdminKey, nil).Expect(200)
		slowest = max(slowest, time.Since(t0))
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("%d uploads settled in %v; slowest other request %v", len(ids), time.Since(start), slowest)
	if slowest > 2*time.Second { // generous: the test machine may be loaded; a hang is far longer
		t.Errorf("a request took %v while PDFs were processed", slowest)
	}
	counts := map[string]int{}
	for id, name := range ids {
		k := getContent(t, e, asst, id)
		counts[k.Status]++
		if k.Error != nil && *k.Error == "could not read this PDF" {
			counts["parser crashed"]++
		}
		switch {
		case k.Status == "FAILED" && (k.Error == nil || *k.Error == ""):
			t.Errorf("%s failed without a reason", name)
		case k.Status != "FAILED" && k.Status != "PROCESSED":
			t.Errorf("%s ended %s", name, k.Status)
		case k.Status == "FAILED" && strings.Contains(*k.Error, "panic"):
			t.Errorf("%s: the stored error shows internals: %q", name, *k.Error)
		}
		if want := fixtureErrors[name]; want != "" && (k.Error == nil || *k.Error != want) {
			t.Errorf("%s: error %v, want %q", name, k.Error, want)
		}
	}
	t.Logf("outcomes %v", counts)
	if counts["FAILED"] < hostileMutants/2 || counts["PROCESSED"] < 1 || counts["parser crashed"] < hostileMutants/4 {
		t.Errorf("outcomes %v: the mutants should mostly fail, many crashing the parser, and some be read", counts)
	}
	// Another organization's knowledge is processed as before.
	other, key := e.OrgWithAdmin("Other")
	var a app.Assistant
	e.Do("POST", "/orgs/"+other.ID+"/assistants", key, map[string]any{"name": "Other helper"}).Expect(201).JSON(&a)
	var k app.KnowledgeContent
	e.Do("POST", "/orgs/"+other.ID+"/assistants/"+a.ID+"/knowledge/contents", key, map[string]any{"title": "After",
		"content": map[string]any{"type": "TEXT", "text": "Processing goes on."}}).Expect(201).JSON(&k)
	e.Eventually(10*time.Second, "the other organization's content is processed", func() bool {
		e.Do("GET", "/orgs/"+other.ID+"/assistants/"+a.ID+"/knowledge/contents/"+k.ID, key, nil).Expect(200).JSON(&k)
		return k.Status == "PROCESSED"
	})
}

// fixtureErrors are the stored errors of the fixtures: the crash and the two-billion-page
// file each named plainly.
var fixtureErrors = map[string]string{
	"panic.pdf":         "could not read this PDF",
	"count_huge.pdf":    "could not read this PDF: it has 2000000000 pages, over knowledge.max_pages_per_file (1000)",
	"kids_notarray.pdf": "no text to learn from",
	"content_bad.pdf":   "could not read this PDF: page 1: bad Tj operator",
}

// TestHangingPDFFailsAtTheTimeLimit: with the page limit lifted, the two-billion-page PDF
// would keep the parser busy for hours; it fails at knowledge.max_extract_seconds, naming
// it, the API answering meanwhile, and the next content is processed.
func TestHangingPDFFailsAtTheTimeLimit(t *testing.T) {
	e := newEnv(t, func(c *cli.Config) { c.Knowledge.MaxExtractSeconds, c.Knowledge.MaxPagesPerFile = 1, 1<<31-1 })
	asst := assistant(t, e)
	var k app.KnowledgeContent
	upload(t, e, asst, "huge.pdf", "", fixture(t, "count_huge.pdf")).Expect(201).JSON(&k)
	waitStatus(t, e, asst, k.ID, "PROCESSING")
	t0 := time.Now()
	e.Do("GET", "/orgs/c", e.AdminKey, nil).Expect(200)
	if took := time.Since(t0); took > 2*time.Second {
		t.Errorf("a request took %v during the extraction", took)
	}
	next := addText(t, e, asst, "Next", "Queued behind the hanging PDF.")
	k = settle(t, e, asst, k.ID)
	if k.Status != "FAILED" || k.Error == nil || *k.Error != "could not read this PDF: it took longer than knowledge.max_extract_seconds (1s)" {
		t.Fatalf("hanging PDF ended %+v", k)
	}
	if next = settle(t, e, asst, next.ID); next.Status != "PROCESSED" {
		t.Fatalf("the next content ended %+v", next)
	}
}
