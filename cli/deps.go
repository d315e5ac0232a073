package cli

import (
	"net"
	"strings"

	"wsapi/app"
	"wsapi/app/api"
	"wsapi/app/assist"
	"wsapi/app/connection"
	"wsapi/app/mail"
	"wsapi/app/secret"
	"wsapi/app/stream"
	"wsapi/app/webhook"
)

// deps makes the service's collaborators: everything but the workers, which need the
// service itself. The run worker is the one collaborator both ways (the service stops its
// runs, it runs the service's): the service gets rt.runs, which the worker fills once made.
func (rt *Runtime) deps(cfg Config, opt Options) (app.Deps, error) {
	clock := opt.Clock
	if clock == nil {
		clock = app.SystemClock{}
	}
	box, err := secret.LoadOrCreate(cfg.keyFile())
	if err != nil {
		return app.Deps{}, err
	}
	rt.DB.SetSealer(box)
	rt.wireOps(clock)
	rt.channels = newChannels(cfg, rt.DB)
	rt.channels.add("whatsapp", whatsappChannel(cfg, rt.DB, clock))
	rt.Hub = stream.New(rt.DB, stream.Options{Buffer: cfg.Events.StreamBuffer, Log: rt.Log})
	d := app.Deps{Store: rt.DB, Clock: clock, Log: rt.Log, Tokens: box.Signer(), Links: api.NewLinks(cfg.HTTP.PublicURL),
		Recorder: rt.Metrics, LiveTexts: rt.Hub, StreamRetention: cfg.Events.StreamRetention,
		KnowledgeMaxPages: cfg.Knowledge.MaxPages, InboxCacheChats: cfg.DB.InboxCacheChats, Runner: &rt.runs,
		DNS: net.DefaultResolver, Resolver: opt.Resolver,
		Connectors: rt.channels.connectors}
	wc := cfg.Webhooks
	d.Webhooks = app.WebhookPolicy{RetrySchedule: wc.RetrySchedule, DisableAfter: wc.DisableAfter,
		Timeout: wc.Timeout, Retention: wc.Retention, AllowPrivateTargets: wc.AllowPrivateTargets}
	client, err := guardedClient(cfg, opt, false)
	if err != nil {
		return app.Deps{}, err
	}
	d.Sender = &webhook.Sender{HTTP: client, Clock: clock}
	if addr := cfg.DNS.Resolver; addr != "" {
		d.DNS = newConfiguredDNS(addr)
	}
	if d.Mailer, err = rt.newMailer(cfg, clock); err != nil {
		return app.Deps{}, err
	}
	d.RunPolicy, d.Automation = assistantPolicies(cfg)
	return d, nil
}

// newMailer makes the SMTP mailer when email.smtp_url is set (nil otherwise).
func (rt *Runtime) newMailer(cfg Config, clock app.Clock) (app.Mailer, error) {
	if cfg.Email.SMTPURL == "" {
		return nil, nil
	}
	if !strings.HasPrefix(cfg.HTTP.PublicURL, "https://") {
		rt.Log.Warn("email is configured but http.public_url is not https: unsubscribe links are plain http "+
			"and mail goes out without RFC 8058 one-click unsubscribe (List-Unsubscribe-Post); set http.public_url",
			"public_url", cfg.HTTP.PublicURL)
	}
	m, err := mail.New(cfg.Email.SMTPURL, cfg.Email.CAFile, cfg.Email.Workers, clock)
	if err != nil {
		return nil, err
	}
	rt.mailer = m
	return m, nil
}

// oauthProviders are the configured providers; viper lowercases map keys, types are upper.
func oauthProviders(cfg Config) map[string]connection.OAuthProvider {
	out := map[string]connection.OAuthProvider{}
	for typ, p := range cfg.OAuth.Providers {
		out[strings.ToUpper(typ)] = connection.OAuthProvider{ClientID: p.ClientID, ClientSecret: p.ClientSecret,
			AuthURL: p.AuthURL, TokenURL: p.TokenURL, UserinfoURL: p.UserinfoURL, APIURL: p.APIURL, Scopes: p.Scopes}
	}
	return out
}

// runAborter is the service's way to the run worker, set once the worker exists (before
// anything runs); until then, and in a process without one, no run is under way here.
type runAborter struct{ runner *assist.Runner }

func (r *runAborter) Abort(messageID string) <-chan struct{} {
	if r.runner == nil {
		return nil
	}
	return r.runner.Abort(messageID)
}

// webMailer is the relay the web app mails members' links through; nil without email.smtp_url
// (a nil *mail.Mailer in the interface would not be nil).
func (rt *Runtime) webMailer() app.Mailer {
	if rt.mailer == nil {
		return nil
	}
	return rt.mailer
}
