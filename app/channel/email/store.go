package email

import (
	"context"
	"crypto/sha256"
	"encoding/base32"
	"encoding/base64"
	"errors"
	"strings"

	"wsapi/app"
)

// Tx is the transaction the email channel needs: the domain's, and the email tables of
// the store (sqlite/email.go).
type Tx interface {
	app.Tx
	EmailThreadChat(orgID string, mailIDs []string) (string, error)
	RecordEmail(orgID, mailID, chatID, messageID, direction, role string, at app.Time) error
	EmailMailIDs(chatID string, limit int) ([]string, error)
	EmailMailOf(orgID, messageID string) (string, error)
	SetEmailChat(orgID, chatID string, tokenHash []byte, subject string) error
	EmailChatSubject(chatID string) (string, error)
	EmailChatOfToken(tokenHash []byte) (orgID, chatID string, err error)
	EmailChannel(orgID, address string) (app.Channel, error)
	EmailRepliesSince(orgID, contactID string, since app.Time) (int, error)
	EmailDeploymentsOf(address string) ([]string, error)
}

var errStore = errors.New("email: the store does not keep email threads (sqlite/email.go)")

// emailTx is tx as the channel's Tx.
func emailTx(tx app.Tx) (Tx, error) {
	t, ok := tx.(Tx)
	if !ok {
		return nil, errStore
	}
	return t, nil
}

// write runs fn in one write transaction of the service's store.
func write(s *app.Service, ctx context.Context, fn func(Tx) error) error {
	return s.Store().Write(ctx, func(tx app.Tx) error {
		t, err := emailTx(tx)
		if err != nil {
			return err
		}
		return fn(t)
	})
}

// read runs fn in one read transaction.
func read(s *app.Service, ctx context.Context, fn func(Tx) error) error {
	return s.Store().Read(ctx, func(tx app.Tx) error {
		t, err := emailTx(tx)
		if err != nil {
			return err
		}
		return fn(t)
	})
}

// replyToken is a chat's reply+<token> token: 128 bits of the server's signature of the chat
// id, lowercase base32 (local parts are matched case-insensitively by some relays), so it is
// never stored, only its hash.
func replyToken(signer app.TokenSigner, chatID string) string {
	signed := signer.Sign("email-reply", chatID)
	_, tag, _ := strings.Cut(signed, ".")
	raw, err := base64.RawURLEncoding.DecodeString(tag)
	if err != nil || len(raw) == 0 {
		raw = []byte(signed)
	}
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(raw))
}

func tokenHash(token string) []byte {
	sum := sha256.Sum256([]byte(strings.ToLower(token)))
	return sum[:]
}
