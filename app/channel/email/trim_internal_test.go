package email

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMayIntroNeverHidesAnIntro: the cheap check before quoteIntro passes every line the
// expression matches (alone or folded with the next line), in every language and case it
// knows and in every line of the corpus, so the check only saves work and never changes a
// trim; and it turns away ordinary lines.
func TestMayIntroNeverHidesAnIntro(t *testing.T) {
	t.Parallel()
	lines := []string{
		"On Tue, Mar 3, 2026 at 6:02 PM Example Support <support@example.com> wrote:",
		"ON MON, 5 JAN 2026, ADA <ADA@EXAMPLE.COM> WROTE:",
		"on\tMonday Ada wrote",
		"Le lun. 5 janv. 2026 à 10:00, Ada <ada@example.com> a écrit :",
		"Am 09.03.26 um 12:05 schrieb Example Support:",
		"El lun, 5 ene 2026 a las 10:00, Ada escribió:",
		"Il giorno lun 5 gen 2026 Ada ha scritto:",
		"Op ma 5 jan. 2026 om 10:00 schreef Ada:",
		"Em seg., 5 de jan. de 2026 às 10:00, Ada escreveu:",
		"Den mån 5 jan. 2026 kl 10:00 skrev Ada:",
		"På mandag skrev Ada:",
		"PÅ mandag skrev Ada:",
	}
	files, _ := filepath.Glob("testdata/corpus/*")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")...)
	}
	matched := 0
	for i, l := range lines {
		l = strings.TrimSpace(l)
		next := ""
		if i+1 < len(lines) {
			next = " " + strings.TrimSpace(lines[i+1])
		}
		if quoteIntro.MatchString(l) || quoteIntro.MatchString(l+next) {
			matched++
			if !mayIntro(l) {
				t.Errorf("mayIntro turns away an intro line: %q", l)
			}
		}
	}
	if matched < 12 {
		t.Fatalf("only %d intro lines matched: the sample lost its intros", matched)
	}
	for _, l := range []string{"We would like to know more about the enterprise plan.", "Hello,", "", "o", "Online help: wrote:", "Only you wrote:"} {
		if mayIntro(l) {
			t.Errorf("mayIntro passes %q", l)
		}
	}
}
