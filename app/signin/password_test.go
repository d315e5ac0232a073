package signin_test

import (
	"strings"
	"testing"

	"wsapi/app/signin"
)

// Hashes are argon2id PHC strings with a fresh salt each; the right password matches, a
// wrong one and a damaged hash do not.
func TestPasswordHash(t *testing.T) {
	a, err := signin.HashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := signin.HashPassword("correct horse battery")
	if !strings.HasPrefix(a, "$argon2id$v=19$m=19456,t=2,p=1$") || a == b {
		t.Fatalf("hash %q (twice the same: %v)", a, a == b)
	}
	if ok, err := signin.CheckPassword(a, "correct horse battery"); !ok || err != nil {
		t.Fatalf("right password: %v %v", ok, err)
	}
	if ok, _ := signin.CheckPassword(a, "correct horse batterz"); ok {
		t.Fatal("wrong password matched")
	}
	for _, bad := range []string{"", "plain", strings.Replace(a, "argon2id", "argon2i", 1), strings.Replace(a, "v=19", "v=16", 1),
		strings.Replace(a, "m=19456", "m=0", 1), a[:strings.LastIndex(a, "$")] + "$"} {
		if ok, err := signin.CheckPassword(bad, "correct horse battery"); ok || err == nil {
			t.Fatalf("damaged hash %q: %v %v", bad, ok, err)
		}
	}
}

// Password bounds in characters: 10 and 256 pass, 9 and 257 do not.
func TestValidatePassword(t *testing.T) {
	for n, ok := range map[int]bool{9: false, 10: true, 256: true, 257: false} {
		if err := signin.ValidatePassword(strings.Repeat("é", n)); (err == nil) != ok {
			t.Errorf("%d characters: %v", n, err)
		}
	}
}
