// Package secret seals values at rest (webhook signing secrets, connection credentials,
// DKIM keys) with XChaCha20-Poly1305 under the 32-byte key of `secrets.key_file`.
package secret

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/crypto/chacha20poly1305"
	"golang.org/x/crypto/hkdf"
)

// prefix marks a sealed value, so a clear value is never mistaken for one.
const prefix = "sealed:v1:"

// Box seals and opens values with one key.
type Box struct{ key []byte }

// LoadOrCreate reads the key file, creating it (0600, 32 random bytes) when missing.
func LoadOrCreate(path string) (*Box, error) {
	key, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		key = make([]byte, chacha20poly1305.KeySize)
		if _, err := rand.Read(key); err != nil {
			return nil, fmt.Errorf("secret: generate key: %w", err)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("secret: %w", err)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			if errors.Is(err, os.ErrExist) { // another process made it first
				return LoadOrCreate(path)
			}
			return nil, fmt.Errorf("secret: create key file: %w", err)
		}
		defer f.Close()
		if _, err := f.Write(key); err != nil {
			return nil, fmt.Errorf("secret: write key file: %w", err)
		}
		return New(key)
	}
	if err != nil {
		return nil, fmt.Errorf("secret: read key file: %w", err)
	}
	if err := ownerOnly(path); err != nil {
		return nil, err
	}
	return New(key)
}

// ownerOnly takes group and other permissions away from a key file made looser by hand or
// by a copy: whoever reads the key can open every tenant's secrets.
func ownerOnly(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("secret: %w", err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(path, fi.Mode().Perm()&0o700); err != nil {
			return fmt.Errorf("secret: restrict key file to its owner: %w", err)
		}
	}
	return nil
}

// WriteKey writes the box's key to a new file, 0600 (a backup's key); it never overwrites.
func (b *Box) WriteKey(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("secret: write key: %w", err)
	}
	if _, err := f.Write(b.key); err != nil {
		f.Close()
		os.Remove(path)
		return fmt.Errorf("secret: write key: %w", err)
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return fmt.Errorf("secret: write key: %w", err)
	}
	return nil
}

// New makes a box from a 32-byte key.
func New(key []byte) (*Box, error) {
	if len(key) != chacha20poly1305.KeySize {
		return nil, fmt.Errorf("secret: key must be %d bytes, got %d", chacha20poly1305.KeySize, len(key))
	}
	return &Box{key: key}, nil
}

// Seal encrypts plaintext; each call uses a fresh random nonce.
func (b *Box) Seal(plaintext string) (string, error) {
	aead, err := chacha20poly1305.NewX(b.key)
	if err != nil {
		return "", fmt.Errorf("secret: %w", err)
	}
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plaintext)+aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("secret: nonce: %w", err)
	}
	out := aead.Seal(nonce, nonce, []byte(plaintext), nil)
	return prefix + base64.RawStdEncoding.EncodeToString(out), nil
}

// Open decrypts a value made by Seal.
func (b *Box) Open(sealed string) (string, error) {
	raw, ok := strings.CutPrefix(sealed, prefix)
	if !ok {
		return "", errors.New("secret: value is not sealed")
	}
	data, err := base64.RawStdEncoding.DecodeString(raw)
	if err != nil {
		return "", fmt.Errorf("secret: decode: %w", err)
	}
	aead, err := chacha20poly1305.NewX(b.key)
	if err != nil {
		return "", fmt.Errorf("secret: %w", err)
	}
	if len(data) < aead.NonceSize() {
		return "", errors.New("secret: sealed value too short")
	}
	plain, err := aead.Open(nil, data[:aead.NonceSize()], data[aead.NonceSize():], nil)
	if err != nil {
		return "", errors.New("secret: cannot open value (wrong secrets key?)")
	}
	return string(plain), nil
}

// Signer makes and checks tokens for links (unsubscribe, tracking): the payload and an
// HMAC-SHA256 tag under a key derived from the secrets key for each purpose.
type Signer struct{ key []byte }

// Signer derives the link-signing key from the box's key.
func (b *Box) Signer() *Signer {
	k := make([]byte, 32)
	if _, err := io.ReadFull(hkdf.New(sha256.New, b.key, nil, []byte("link tokens")), k); err != nil {
		panic("secret: hkdf: " + err.Error())
	}
	return &Signer{key: k}
}

func (s *Signer) tag(purpose, payload string) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(purpose + "\x00" + payload))
	return m.Sum(nil)[:16]
}

// Sign makes a URL-safe token carrying payload for one purpose.
func (s *Signer) Sign(purpose, payload string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(payload)) + "." +
		base64.RawURLEncoding.EncodeToString(s.tag(purpose, payload))
}

// Verify answers the payload of a token made for purpose, comparing tags in constant time.
func (s *Signer) Verify(purpose, token string) (string, bool) {
	p, t, ok := strings.Cut(token, ".")
	if !ok {
		return "", false
	}
	payload, err1 := base64.RawURLEncoding.DecodeString(p)
	tag, err2 := base64.RawURLEncoding.DecodeString(t)
	if err1 != nil || err2 != nil || !hmac.Equal(tag, s.tag(purpose, string(payload))) {
		return "", false
	}
	return string(payload), true
}
