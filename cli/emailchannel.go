package cli

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"time"

	"wsapi/app"
	"wsapi/app/channel"
	"wsapi/app/channel/email"
)

// EmailInboundConfig is email.inbound: the SMTP listener of serve (docs/channels.md, "Email").
type EmailInboundConfig struct {
	Addr                   string        `mapstructure:"addr"`     // empty: no listener
	Hostname               string        `mapstructure:"hostname"` // the greeting's name; default the host of addr
	TLSCert                string        `mapstructure:"tls_cert"` // with tls_key: STARTTLS offered
	TLSKey                 string        `mapstructure:"tls_key"`
	MaxBytes               int64         `mapstructure:"max_bytes"`
	MaxRecipients          int           `mapstructure:"max_recipients"`
	MaxConnectionsPerIP    int           `mapstructure:"max_connections_per_ip"`
	MessagesPerMinutePerIP int           `mapstructure:"messages_per_minute_per_ip"`
	Timeout                time.Duration `mapstructure:"timeout"`
}

func init() {
	for k, v := range map[string]any{
		"email.inbound.addr":                       "",
		"email.inbound.hostname":                   "",
		"email.inbound.tls_cert":                   "",
		"email.inbound.tls_key":                    "",
		"email.inbound.max_bytes":                  email.DefaultMaxBytes,
		"email.inbound.max_recipients":             20,
		"email.inbound.max_connections_per_ip":     10,
		"email.inbound.messages_per_minute_per_ip": 60,
		"email.inbound.timeout":                    "60s",
		"email.max_auto_replies_per_hour":          5,
	} {
		defaults[k] = v
	}
}

func (c EmailConfig) validateChannel() error {
	in := c.Inbound
	if in.MaxBytes < 1 || in.MaxRecipients < 1 || in.MaxConnectionsPerIP < 0 || in.MessagesPerMinutePerIP < 0 ||
		in.Timeout <= 0 || c.MaxAutoRepliesPerHour < 0 {
		return errors.New("config: email.inbound.max_bytes, max_recipients and timeout must be positive; " +
			"max_connections_per_ip, messages_per_minute_per_ip and email.max_auto_replies_per_hour 0 (no limit) or more")
	}
	if (in.TLSCert == "") != (in.TLSKey == "") {
		return errors.New("config: email.inbound.tls_cert and email.inbound.tls_key go together")
	}
	return nil
}

// wireEmail makes the email channel: the receiver (shared by the SMTP listener and the IMAP
// poller), its sender in the delivery worker and its set-up check.
func (rt *Runtime) wireEmail(cfg Config, _ Options) error {
	auth := email.Authenticator{}
	if addr := cfg.DNS.Resolver; addr != "" {
		auth.DNS = newConfiguredDNS(addr).resolver
	}
	rt.Email = &email.Receiver{Service: rt.Service, Auth: auth, MaxBytes: cfg.Email.Inbound.MaxBytes,
		MaxAutoRepliesPerHour: cfg.Email.MaxAutoRepliesPerHour, Log: rt.Log}
	// The listener queues its mail; the inbound worker takes it in (docs/decisions/email-queue.md).
	rt.Inbound.Takers = map[string]channel.Taker{app.IntegrationEmail: rt.Email}
	sender := &email.Sender{Service: rt.Service}
	if rt.mailer != nil {
		sender.Relay = rt.mailer
	}
	rt.Delivery.Senders[app.IntegrationEmail] = sender
	rt.channels.connectors[app.IntegrationEmail] = &email.Connector{Service: rt.Service}
	return nil
}

// OpenInbound binds the SMTP listener when email.inbound.addr is set; serve calls it before
// starting, so a taken port fails the start. Start opens it when no one did.
func (rt *Runtime) OpenInbound() error {
	in := rt.Config.Email.Inbound
	if in.Addr == "" || rt.SMTP != nil {
		return nil
	}
	l := &email.Listener{Receiver: rt.Email, Spool: rt.Spool, Log: rt.Log, Config: email.ListenerConfig{Addr: in.Addr, Hostname: in.Hostname,
		MaxBytes: in.MaxBytes, MaxRecipients: in.MaxRecipients, MaxConnectionsPerIP: in.MaxConnectionsPerIP,
		MessagesPerMinutePerIP: in.MessagesPerMinutePerIP, Timeout: in.Timeout, SpoolDir: spoolDir(rt.Config.DB.Path)}}
	if in.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(in.TLSCert, in.TLSKey)
		if err != nil {
			return fmt.Errorf("email.inbound: tls: %w", err)
		}
		l.Config.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	if err := l.Listen(); err != nil {
		return err
	}
	rt.SMTP = l
	rt.Log.Info("email: accepting mail over SMTP", "addr", l.Addr(), "starttls", l.Config.TLS != nil)
	return nil
}

// spoolDir is where the listener spools a big mail's data: the database's directory (a disk,
// where the system's temporary directory may be memory), or that one for a database in memory.
func spoolDir(dbPath string) string {
	if dbPath == "" || dbPath == ":memory:" || strings.HasPrefix(dbPath, "file:") {
		return ""
	}
	return filepath.Dir(dbPath)
}

// runSMTP serves SMTP until ctx ends, then lets the sessions under way finish for at most
// http.shutdown_timeout (a mail not acknowledged is sent again by its relay).
func (rt *Runtime) runSMTP(ctx context.Context) {
	if err := rt.OpenInbound(); err != nil {
		rt.Log.Error("email: the SMTP listener did not start", "err", err)
		return
	}
	if rt.SMTP == nil {
		return
	}
	done := make(chan error, 1)
	go func() { done <- rt.SMTP.Serve() }()
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, net.ErrClosed) {
			rt.Log.Error("email: the SMTP listener stopped", "err", err)
		}
		return
	case <-ctx.Done():
	}
	timeout := rt.Config.HTTP.ShutdownTimeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	sctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := rt.SMTP.Shutdown(sctx); err != nil {
		rt.Log.Warn("email: SMTP sessions still open at the end of the shutdown; closed", "err", err)
	}
	<-done
}
