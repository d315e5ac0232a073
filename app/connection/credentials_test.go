package connection

import "testing"

func TestLooksLikeCredentialKey(t *testing.T) {
	cases := []struct {
		key  string
		want bool
	}{
		{"api_key", true}, {"Api-Key", true}, {"API_KEY", true}, {"apiKey", true}, {"APIKey", true}, {"x-api-key", true},
		{"authorization", true}, {"Authorization", true}, {"auth", true}, {"AUTH", true}, {"auth_header", true},
		{"bearer", true}, {"Bearer-Token", true}, {"passwd", true}, {"password", true}, {"Pass", true}, {"db_pwd", true},
		{"secret", true}, {"client_secret", true}, {"clientSecret", true}, {"access_token", true}, {"refreshToken", true},
		{"private_key", true}, {"privateKey", true}, {"credentials", true}, {"passphrase", true}, {"session_cookie", true},
		{"signing_key", true}, {"access-key-id", true}, {"jwt", true},
		{"author", false}, {"authority_url", false}, {"region", false}, {"passenger", false}, {"keyboard", false},
		{"primary_key_column", false}, {"scheme", false}, {"host", false}, {"sort_key", false}, {"monkey", false},
	}
	for _, c := range cases {
		if got := credentialKey(c.key); got != c.want {
			t.Errorf("credentialKey(%q) = %v, want %v", c.key, got, c.want)
		}
	}
}

func TestLooksLikeCredentialValue(t *testing.T) {
	cases := []struct {
		value string
		want  bool
	}{
		{"Bearer abc.def-ghi", true}, {"bearer 0123456789", true}, {"Basic dXNlcjpwYXNz", true},
		{"sk_live_51HabcDEF", true}, {"sk-proj-abcdef123456", true}, {"ghp_0123456789abcdefABCDEF", true},
		{"xoxb-1234-5678-abcd", true}, {"AKIAIOSFODNN7EXAMPLE", true}, {"whsec_abc123", true},
		{"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl", true},
		{"-----BEGIN RSA PRIVATE KEY-----\nMIIE", true},
		{"q8Zr2LkW9xYt4NvB7mPc3HsJ6dFg1QaE", true}, // 32 mixed-case letters and digits
		{"eu", false}, {"bearer", false}, {"Bearer", false}, {"https://api.example.com/v1?x=1", false},
		{"3f2504e0-4f89-11d3-9a0c-0305e82c3301", false}, // a UUID is an id, not a secret
		{"0123456789abcdef0123456789abcdef01234567", false},
		{"The quick brown fox jumps over the lazy dog 42", false}, {"basic", false}, {"sk", false},
	}
	for _, c := range cases {
		if got := credentialValue(c.value); got != c.want {
			t.Errorf("credentialValue(%q) = %v, want %v", c.value, got, c.want)
		}
	}
}
