package signin

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"

	"golang.org/x/crypto/argon2"
)

// Argon2id parameters: OWASP's first recommended set (19 MiB, 2 passes, 1 lane). A hash
// takes about 30 ms on one core; sign-in is throttled, so this bounds the CPU an attacker
// can spend. The parameters are stored in each hash, so raising them later keeps old
// passwords working.
const (
	argonTime    = 2
	argonMemory  = 19 * 1024
	argonThreads = 1
	argonKeyLen  = 32
	saltLen      = 16
)

// Password length bounds, in characters. 10 keeps out the shortest guesses; 256 bounds the
// work of hashing what a hostile form sends.
const (
	MinPasswordChars = 10
	MaxPasswordChars = 256
)

var b64 = base64.RawStdEncoding

// HashPassword makes the PHC string of a password: $argon2id$v=19$m=..,t=..,p=..$salt$hash.
func HashPassword(password string) (string, error) {
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("signin: salt: %w", err)
	}
	key := argon2.IDKey([]byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads,
		b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// errBadHash is a stored hash that does not parse: never a match.
var errBadHash = errors.New("signin: stored password hash is not argon2id")

// CheckPassword tells whether password matches a PHC string made by HashPassword; the
// comparison takes the same time wherever the keys differ.
func CheckPassword(phc, password string) (bool, error) {
	parts := strings.Split(phc, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false, errBadHash
	}
	var version int
	var m, t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, errBadHash
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &p); err != nil || m == 0 || t == 0 || p == 0 {
		return false, errBadHash
	}
	salt, err1 := b64.DecodeString(parts[4])
	want, err2 := b64.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(want) == 0 {
		return false, errBadHash
	}
	got := argon2.IDKey([]byte(password), salt, t, m, p, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// dummyHash is checked when no member has the email, so an unknown account costs the same
// time as a wrong password and the timing tells nothing.
// Made on first use: hashing costs every command of the binary 30 ms at start otherwise.
var dummyHash = sync.OnceValue(func() string {
	h, err := HashPassword("not a password of anyone")
	if err != nil {
		panic(err)
	}
	return h
})
