package connection

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"wsapi/app"
)

// A connection's config is stored in clear and answered on every read; credentials belong in
// its secrets, which are sealed and never answered. These rules decide what in a config
// looks like a credential, by its key or by its value, so that it is refused (400) instead
// of leaking.

// credentialInside are word runs that name a credential wherever they appear in a key once
// case, dashes, underscores and dots are dropped ("Api-Key", "x_api_key", "clientSecret").
var credentialInside = []string{"secret", "token", "password", "passwd", "passphrase", "apikey", "privatekey",
	"accesskey", "signingkey", "credential", "authorization", "bearer", "cookie"}

// credentialWords name a credential only as a whole word of the key: "auth" but not
// "author", "pass" but not "passenger".
var credentialWords = []string{"auth", "pass", "pwd", "jwt", "otp", "pin"}

// keyWords splits a key into lower-case words at non-letters and digits and at camelCase
// boundaries ("APIKey" -> api, key; "clientSecret" -> client, secret).
func keyWords(key string) []string {
	var words []string
	var cur []rune
	rs := []rune(key)
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if unicode.IsUpper(r) && len(cur) > 0 {
			prevLower := unicode.IsLower(rs[i-1])
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if prevLower || (unicode.IsUpper(rs[i-1]) && nextLower) {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return words
}

// credentialKey tells whether a config key names a credential.
func credentialKey(key string) bool {
	words := keyWords(key)
	joined := strings.Join(words, "")
	for _, s := range credentialInside {
		if strings.Contains(joined, s) {
			return true
		}
	}
	for _, w := range words {
		if slices.Contains(credentialWords, w) {
			return true
		}
	}
	return false
}

// tokenShapes are the forms of well-known credentials: an Authorization header value, API
// keys with a vendor prefix, AWS access key ids, JWTs, PEM private keys.
var tokenShapes = regexp.MustCompile(`^(?i:(bearer|basic|token)\s+\S{6,})$|` +
	`^(sk|pk|rk)[_-](live|test|proj)?[_-]?[A-Za-z0-9_-]{8,}$|^(ghp|gho|ghu|ghs|ghr|github_pat|glpat|whsec|xox[abposr])[_-][A-Za-z0-9_-]{6,}$|` +
	`^A[KS]IA[0-9A-Z]{16}$|^eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$|-----BEGIN [A-Z ]*PRIVATE KEY-----`)

// opaqueToken is a long run of base64/base62 characters: a random secret, unless it has the
// single case of an id or a hash (UUIDs, hex digests).
var opaqueToken = regexp.MustCompile(`^[A-Za-z0-9_\-+/=.]{32,}$`)

// credentialValue tells whether a config value looks like a credential.
func credentialValue(v string) bool {
	v = strings.TrimSpace(v)
	if tokenShapes.MatchString(v) {
		return true
	}
	if !opaqueToken.MatchString(v) {
		return false
	}
	return strings.IndexFunc(v, unicode.IsUpper) >= 0 && strings.IndexFunc(v, unicode.IsLower) >= 0 &&
		strings.IndexFunc(v, unicode.IsDigit) >= 0
}

// credentialKeys refuses config entries that look like credentials, nested ones included: a
// key that names one (unless it holds an object of settings, whose entries are checked
// instead) or a string value that looks like one.
func credentialKeys(p app.Problems, path string, v any) {
	const why = "looks like a credential; put it in secrets, which are sealed and never returned"
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if _, nested := x.(map[string]any); !nested && credentialKey(k) {
				p.Add(path+"."+k, why)
			}
			credentialKeys(p, path+"."+k, x)
		}
	case []any:
		for i, x := range v {
			credentialKeys(p, path+"["+strconv.Itoa(i)+"]", x)
		}
	case string:
		if credentialValue(v) {
			p.Add(path, why)
		}
	}
}
