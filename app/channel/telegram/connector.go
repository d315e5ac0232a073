package telegram

import (
	"context"
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"

	"wsapi/app"
	"wsapi/app/channel"
)

// Type is the integration type of Telegram bots.
const Type = "telegram"

// The integration's secrets: the bot token (input) and the webhook's secret_token (made).
const (
	tokenKey  = "bot_token"
	secretKey = "webhook_secret"
)

// SecretHeader carries the webhook's secret_token on every update Telegram posts.
const SecretHeader = "X-Telegram-Bot-Api-Secret-Token"

// Connector is the Telegram channel in every role (see the package doc).
type Connector struct {
	API *Client
	// PublicURL is http.public_url: Telegram posts to PublicURL/hooks/telegram/{asi}.
	PublicURL string
	// Store reads the contact's channel and the files of a message when sending.
	Store app.Store
}

var (
	_ app.Connector        = (*Connector)(nil)
	_ app.Remover          = (*Connector)(nil)
	_ channel.Inbound      = (*Connector)(nil)
	_ channel.MediaFetcher = (*Connector)(nil)
	_ channel.Sender       = (*Connector)(nil)
	_ channel.Typer        = (*Connector)(nil)
)

// User is the Bot API's User.
type User struct {
	ID           int64  `json:"id"`
	IsBot        bool   `json:"is_bot"`
	FirstName    string `json:"first_name"`
	LastName     string `json:"last_name"`
	Username     string `json:"username"`
	LanguageCode string `json:"language_code"`
}

// HookURL is where Telegram posts the updates of integration asi.
func (c *Connector) HookURL(asi string) string {
	return strings.TrimRight(c.PublicURL, "/") + "/hooks/telegram/" + asi
}

// Verify checks the bot token (getMe) and points the bot's webhook here with the
// integration's secret_token (made when absent). A failure is the integration's error, in
// Telegram's words.
func (c *Connector) Verify(ctx context.Context, d app.Deployment) error {
	token := d.Secrets[tokenKey]
	var me User
	if err := c.API.Call(ctx, token, "getMe", struct{}{}, &me); err != nil {
		return setupError(err, "the bot token was refused")
	}
	if d.Secrets[secretKey] == "" {
		d.Secrets[secretKey] = app.RandomBase62(48) // Telegram allows 1-256 of A-Z a-z 0-9 _ -
	}
	params := map[string]any{"url": c.HookURL(d.ID), "secret_token": d.Secrets[secretKey],
		"allowed_updates": []string{"message", "edited_message"}}
	if err := c.API.Call(ctx, token, "setWebhook", params, nil); err != nil {
		return setupError(err, "the webhook could not be set")
	}
	return nil
}

// setupError is what an integration's error says of a failed set-up call: Telegram's own
// description, else what failed (a transport error without the URL).
func setupError(err error, what string) error {
	var ae *APIError
	if errors.As(err, &ae) {
		return errors.New(what + ": " + ae.Error())
	}
	return errors.New(what + ": " + err.Error())
}

// Remove deletes the bot's webhook: Telegram stops posting to a deleted integration.
func (c *Connector) Remove(ctx context.Context, d app.Deployment) error {
	return c.API.Call(ctx, d.Secrets[tokenKey], "deleteWebhook", struct{}{}, nil)
}

// CheckRequest compares the secret_token header with the integration's, in constant time.
func (c *Connector) CheckRequest(d app.Deployment, header http.Header, _ []byte) error {
	want, got := d.Secrets[secretKey], header.Get(SecretHeader)
	if want == "" || subtle.ConstantTimeCompare([]byte(want), []byte(got)) != 1 {
		return errors.New("telegram: the secret token does not match")
	}
	return nil
}

// chatOf reads the Telegram chat id of a chat's contact: its telegram channel's user_id
// (a private chat's id is its user's).
func (c *Connector) chatOf(ctx context.Context, chat app.Chat) (string, error) {
	var ch app.Channel
	err := c.Store.Read(ctx, func(tx app.Tx) (err error) {
		ch, err = tx.GetChannel(chat.OrgID, chat.ContactChannelID)
		return err
	})
	if err != nil {
		return "", err
	}
	if ch.Type != Type || ch.UserID == "" {
		return "", channel.Permanent{Err: errors.New("the chat's contact has no Telegram channel with a user_id")}
	}
	return ch.UserID, nil
}

// Typing shows "typing..." in the contact's chat (Telegram shows it 5 seconds or until the
// next message).
func (c *Connector) Typing(ctx context.Context, d app.Deployment, chat app.Chat) error {
	to, err := c.chatOf(ctx, chat)
	if err != nil {
		return err
	}
	return c.API.Call(ctx, d.Secrets[tokenKey], "sendChatAction", map[string]any{"chat_id": to, "action": "typing"}, nil)
}
