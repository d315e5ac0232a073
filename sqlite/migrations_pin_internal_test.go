package sqlite

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

// released pins every migration that has shipped, by file name and the SHA-256 of its
// bytes. goose runs a version once and never looks at its file again, so a shipped
// migration that is edited or renamed leaves every database that ran the first file without
// the change (00015 was: 00024 is the repair). A change to a database that has shipped is a
// new migration. Add a file here when it ships (at release), never change a line.
var released = map[string]string{
	"00001_access.sql":                      "585bbace09eb8ac0ee17bed5360d07dfd14428d2dd54124b3d196ae303b9736f",
	"00002_webhooks.sql":                    "1416918c85353c998cd7475f59cdbd2a143d33e86cda25e7897e73a8b4a7d2d6",
	"00003_contacts.sql":                    "f3bc75beda54b035cd4da29902cd4f08a017a651b282bfb3c4812ff5a4f334d2",
	"00004_chats.sql":                       "1229d857c472d9fbf339adfe56455d1c8642c12cd02d4c4fdc2c181a09c7bc03",
	"00005_broadcasts.sql":                  "34f672ca5e2dc54ba296e65de85b7092bf938486a84addb9082123ae1b885b5f",
	"00006_knowledge_connections.sql":       "900745f4876c6a99ab1ec1136bd168a22a7cbebca05b1c644d94c045dd58fd04",
	"00007_delivery_claims.sql":             "28f2c70c413953d183d9a16d4db42a0a1c796c79b275db32d3f8b21a787a4500",
	"00008_inbox_indexes.sql":               "f48ddb8efc13b0308cbf39d6628a3aa293ba3f17ca2bf560b163a90bf021f480",
	"00009_reference_indexes.sql":           "2c306ecd79592700d83322a8a82aae91dbe71e0a54115a69b1f3a93214c6d5ba",
	"00010_inbox_versions.sql":              "c48f27048a012cdd944c488bf98fe99b5f7f44db34f236df8a051016a5d872b9",
	"00011_chat_versions.sql":               "fd206e5b023b08a0af058d836f735cc4b6bd467476674dc45cb9d160420b09f2",
	"00012_fair_claims.sql":                 "94804045a6ba5e71edfa1db839c1b399569a038677430e8f985963ec347fca7b",
	"00013_assistant_runs.sql":              "3c34ebc2e24b32fccbfd11c5fd7f7cbc5a2ed1b481527991c34acd458398a5d0",
	"00014_stream_events.sql":               "4253c3dd4bdc9060fded4704ce950f3182ad16ff4d8396fd841086ab53aa630b",
	"00015_correctness.sql":                 "b14db5d63cd598a153a62d42f12d553ee4b01fce499dcba03318204d5505117b",
	"00016_idempotency_keys.sql":            "550ff838362d8325c4ab8755d2ef536fb3e119a5c2b3995c301d12967f7dbf36",
	"00018_automation.sql":                  "68feb05b72631cac2e74af4b15be88e548062b3319c2f58e3e15f343eb64e197",
	"00019_auth_version_contact_counts.sql": "45f84d08d12ef1f2f3ee43caa304550f9367f06ef0add0c1284b6a59b6b2a1e9",
	"00021_fts_when_changed.sql":            "b2302fcec3e31102327d7505b6c9e979d966f158565690cf5589bdc2970cd777",
	"00022_inbox_changes.sql":               "6f6b8a21ce62fee93a5574ca00afa7e089d7bc2468466d91e83da158e7ab75cb",
	"00023_stream_events_purge_by_seq.sql":  "5d0bdc1411488c7bcad1d1ff27957a556b511fd405e72834af7eed53008c835a",
	"00024_recipients_repair.sql":           "afb3fc51dffaf42e8c60f847ad02975eb71bbb21d8a261ad01788ef0da4bed13",
}

// TestReleasedMigrationsAreFrozen: every released migration is embedded under its name with
// the bytes it shipped with, and a migration not released yet comes after all of them (a new
// number slipped in among the released ones would never run on a database past it).
func TestReleasedMigrationsAreFrozen(t *testing.T) {
	t.Parallel()
	if problems := frozenProblems(migrations, released); len(problems) > 0 {
		t.Error(strings.Join(problems, "\n"))
	}
}

// TestFrozenProblems: the check itself finds an edited file, a renamed one, a missing one
// and a new number among the released ones, and lets a new number after them through.
func TestFrozenProblems(t *testing.T) {
	t.Parallel()
	sum := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	pins := map[string]string{"00001_a.sql": sum("a"), "00002_b.sql": sum("b"), "00004_d.sql": sum("d")}
	for _, c := range []struct {
		name  string
		files map[string]string
		want  int
	}{
		{"as released", map[string]string{"00001_a.sql": "a", "00002_b.sql": "b", "00004_d.sql": "d"}, 0},
		{"a new one after", map[string]string{"00001_a.sql": "a", "00002_b.sql": "b", "00004_d.sql": "d", "00005_e.sql": "e"}, 0},
		{"edited", map[string]string{"00001_a.sql": "a2", "00002_b.sql": "b", "00004_d.sql": "d"}, 1},
		{"renamed", map[string]string{"00001_a.sql": "a", "00002_bb.sql": "b", "00004_d.sql": "d"}, 2},
		{"a new one among them", map[string]string{"00001_a.sql": "a", "00002_b.sql": "b", "00003_c.sql": "c", "00004_d.sql": "d"}, 1},
		{"the same number again", map[string]string{"00001_a.sql": "a", "00002_b.sql": "b", "00004_d.sql": "d", "00004_x.sql": "x"}, 1},
	} {
		fsys := fstestFS(c.files)
		if got := frozenProblems(fsys, pins); len(got) != c.want {
			t.Errorf("%s: %d problems %q, want %d", c.name, len(got), got, c.want)
		}
	}
}

// frozenProblems lists how the migrations under fsys's "migrations" break the pins.
func frozenProblems(fsys fs.FS, pins map[string]string) []string {
	var problems []string
	var highest int64
	for name := range pins {
		highest = max(highest, migrationNumber(name))
	}
	entries, err := fs.ReadDir(fsys, "migrations")
	if err != nil {
		return []string{err.Error()}
	}
	seen := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		b, err := fs.ReadFile(fsys, "migrations/"+name)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		h := sha256.Sum256(b)
		want, pinned := pins[name]
		switch {
		case pinned && hex.EncodeToString(h[:]) != want:
			problems = append(problems, name+" was edited after it was released: make the change a new migration")
		case !pinned && migrationNumber(name) <= highest:
			problems = append(problems, name+" is numbered among the released migrations ("+strconv.FormatInt(highest, 10)+" and before): number it after them")
		}
		seen[name] = pinned
	}
	for name := range pins {
		if !seen[name] {
			problems = append(problems, name+" was released and is gone (renamed or deleted): restore it")
		}
	}
	return problems
}

// migrationNumber is the version a migration's file name starts with (goose's rule), or -1.
func migrationNumber(name string) int64 {
	digits, _, _ := strings.Cut(name, "_")
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// fstestFS is a file system holding files under "migrations".
func fstestFS(files map[string]string) fs.FS {
	m := fstest.MapFS{}
	for name, body := range files {
		m["migrations/"+name] = &fstest.MapFile{Data: []byte(body)}
	}
	return m
}
