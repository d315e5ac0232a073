package typing

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"wsapi/app"
	"wsapi/app/channel"
)

// Live passes every call on to Next and drives the typing indicator.
type Live struct {
	Next   app.Live
	Store  app.Store
	Typers map[string]channel.Typer // by integration type
	Every  time.Duration            // 0: 4 s (Telegram shows typing for 5 s)
	Max    time.Duration            // 0: 2 min
	Log    *slog.Logger

	mu   sync.Mutex
	runs map[string]context.CancelFunc
}

var _ app.Live = (*Live)(nil)

// Begin starts the indicator of the run of message messageID.
func (l *Live) Begin(orgID, chatID, messageID string) {
	l.Next.Begin(orgID, chatID, messageID)
	if len(l.Typers) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), cmp(l.Max, 2*time.Minute))
	l.mu.Lock()
	if l.runs == nil {
		l.runs = map[string]context.CancelFunc{}
	}
	if old := l.runs[messageID]; old != nil {
		old()
	}
	l.runs[messageID] = cancel
	l.mu.Unlock()
	go func() {
		defer cancel()
		if err := app.Safely(func() error { return l.show(ctx, orgID, chatID) }); err != nil && ctx.Err() == nil {
			app.LogFailure(l.logger(), "typing: indicator", err, "org", orgID, "chat", chatID)
		}
	}()
}

// Delta passes the text on.
func (l *Live) Delta(orgID, chatID, messageID string, offset int, text string) {
	l.Next.Delta(orgID, chatID, messageID, offset, text)
}

// Done stops the indicator.
func (l *Live) Done(orgID, chatID, messageID string) {
	l.mu.Lock()
	if cancel := l.runs[messageID]; cancel != nil {
		cancel()
		delete(l.runs, messageID)
	}
	l.mu.Unlock()
	l.Next.Done(orgID, chatID, messageID)
}

// show finds the chat's integration and, when its channel has a Typer, calls it until ctx ends.
func (l *Live) show(ctx context.Context, orgID, chatID string) error {
	var chat app.Chat
	var d app.Deployment
	err := l.Store.Read(ctx, func(tx app.Tx) (err error) {
		if chat, err = tx.GetChat(orgID, chatID); err != nil || chat.State == nil || chat.State.AssistantIntegrationID == nil {
			return err
		}
		d, err = tx.GetDeployment(orgID, "", *chat.State.AssistantIntegrationID)
		return err
	})
	typer := l.Typers[d.IntegrationID]
	if err != nil || typer == nil || chat.ContactChannelID == "" {
		return nil // no integration, or one that shows nothing
	}
	tick := time.NewTicker(cmp(l.Every, 4*time.Second))
	defer tick.Stop()
	for {
		if err := typer.Typing(ctx, d, chat); err != nil && ctx.Err() == nil {
			l.logger().Debug("typing: indicator failed", "chat", chatID, "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

func (l *Live) logger() *slog.Logger {
	if l.Log == nil {
		return slog.Default()
	}
	return l.Log
}

func cmp(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
