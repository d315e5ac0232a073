package cli

import (
	"errors"
	"net/http"
	"time"

	"wsapi/app"
	"wsapi/app/api"
	"wsapi/app/channel"
	"wsapi/app/channel/inbound"
	"wsapi/app/channel/telegram"
	"wsapi/app/channel/widget"
	"wsapi/app/delivery"
	"wsapi/sqlite"
)

// ChannelsConfig is the channels' part of the configuration (docs/channels.md).
type ChannelsConfig struct {
	Delivery DeliveryConfig `mapstructure:"delivery"`
	Inbound  InboundConfig  `mapstructure:"inbound"`
	Widget   WidgetConfig   `mapstructure:"widget"`
	// Per channel type: sends a second at most (the provider's own limit; 0: none).
	Internal ChannelLimit    `mapstructure:"internal"`
	Email    ChannelLimit    `mapstructure:"email"`
	Telegram ProviderChannel `mapstructure:"telegram"`
	WhatsApp ProviderChannel `mapstructure:"whatsapp"`
}

// ChannelLimit is one channel type's send rate.
type ChannelLimit struct {
	RatePerSecond float64 `mapstructure:"rate_per_second"`
}

// ProviderChannel is a messaging app's send rate and its provider's API base URL (tests
// and self-hosted servers point it elsewhere). Operator configuration, not a tenant's URL:
// it does not go through the SSRF guard.
type ProviderChannel struct {
	RatePerSecond float64 `mapstructure:"rate_per_second"`
	APIURL        string  `mapstructure:"api_url"`
}

// InboundConfig tunes the worker that takes in messaging-app providers' updates.
type InboundConfig struct {
	Workers int           `mapstructure:"workers"`
	Tick    time.Duration `mapstructure:"tick"`
	Timeout time.Duration `mapstructure:"timeout"`
}

// DeliveryConfig tunes the worker that sends replies to contacts.
type DeliveryConfig struct {
	Workers           int             `mapstructure:"workers"`
	Tick              time.Duration   `mapstructure:"tick"`
	Timeout           time.Duration   `mapstructure:"timeout"`
	MaxInFlightPerOrg int             `mapstructure:"max_in_flight_per_org"`
	RetrySchedule     []time.Duration `mapstructure:"retry_schedule"`
}

// WidgetConfig bounds the web widget's visitors (api.WidgetLimits).
type WidgetConfig struct {
	SessionsPerMinutePerIP          int `mapstructure:"sessions_per_minute_per_ip"`
	MessagesPerMinutePerSession     int `mapstructure:"messages_per_minute_per_session"`
	MessagesPerMinutePerIP          int `mapstructure:"messages_per_minute_per_ip"`
	MessagesPerMinutePerIntegration int `mapstructure:"messages_per_minute_per_integration"`
	StreamsPerIP                    int `mapstructure:"streams_per_ip"`
	StreamsPerIntegration           int `mapstructure:"streams_per_integration"`
}

func init() {
	for k, v := range map[string]any{
		"channels.delivery.workers":                           8,
		"channels.delivery.tick":                              "1s",
		"channels.delivery.timeout":                           "30s",
		"channels.delivery.max_in_flight_per_org":             0,
		"channels.delivery.retry_schedule":                    []string{"5s", "30s", "2m", "15m", "1h"},
		"channels.inbound.workers":                            8,
		"channels.inbound.tick":                               "1s",
		"channels.inbound.timeout":                            "1m",
		"channels.telegram.api_url":                           "https://api.telegram.org",
		"channels.whatsapp.api_url":                           "https://graph.facebook.com/v21.0",
		"channels.widget.sessions_per_minute_per_ip":          20,
		"channels.widget.messages_per_minute_per_session":     20,
		"channels.widget.messages_per_minute_per_ip":          60,
		"channels.widget.messages_per_minute_per_integration": 1200,
		"channels.widget.streams_per_ip":                      20,
		"channels.widget.streams_per_integration":             10000,
		"channels.internal.rate_per_second":                   0,
		"channels.email.rate_per_second":                      10,
		"channels.telegram.rate_per_second":                   30,
		"channels.whatsapp.rate_per_second":                   80,
	} {
		defaults[k] = v
	}
}

func (c ChannelsConfig) validate() error {
	d := c.Delivery
	if d.Workers < 1 || d.Tick <= 0 || d.Timeout <= 0 || d.MaxInFlightPerOrg < 0 {
		return errors.New("config: channels.delivery.workers must be at least 1, tick and timeout positive, " +
			"max_in_flight_per_org 0 or more")
	}
	if in := c.Inbound; in.Workers < 1 || in.Tick <= 0 || in.Timeout <= 0 {
		return errors.New("config: channels.inbound.workers must be at least 1, tick and timeout positive")
	}
	for _, wait := range d.RetrySchedule {
		if wait <= 0 {
			return errors.New("config: channels.delivery.retry_schedule holds waits that must be positive")
		}
	}
	return nil
}

// widgetLimits is the widget's part of the API's configuration.
func (c ChannelsConfig) widgetLimits() api.WidgetLimits {
	w := c.Widget
	return api.WidgetLimits{SessionsPerMinutePerIP: w.SessionsPerMinutePerIP,
		MessagesPerMinutePerSession: w.MessagesPerMinutePerSession, MessagesPerMinutePerIP: w.MessagesPerMinutePerIP,
		MessagesPerMinutePerIntegration: w.MessagesPerMinutePerIntegration, StreamsPerIP: w.StreamsPerIP,
		StreamsPerIntegration: w.StreamsPerIntegration}
}

// channelSet is every channel connector of this build by integration type, in each role it
// plays: the set-up check (app.Connector), the hook (channel.Inbound), the delivery
// (channel.Sender), the typing indicator (channel.Typer). One connector value usually plays
// several; add registers it in each it implements.
type channelSet struct {
	connectors map[string]app.Connector
	inbound    map[string]channel.Inbound
	senders    map[string]channel.Sender
	typers     map[string]channel.Typer
}

func (c channelSet) add(typ string, conn any) {
	if v, ok := conn.(app.Connector); ok {
		c.connectors[typ] = v
	}
	if v, ok := conn.(channel.Inbound); ok {
		c.inbound[typ] = v
	}
	if v, ok := conn.(channel.Sender); ok {
		c.senders[typ] = v
	}
	if v, ok := conn.(channel.Typer); ok {
		c.typers[typ] = v
	}
}

// newChannels makes the connectors. The widget and custom need no set-up check; a type with
// no connector here is saved FAILED, "not available on this
// server yet", and GET /metadata does not offer it.
func newChannels(cfg Config, store app.Store) channelSet {
	c := channelSet{connectors: map[string]app.Connector{}, inbound: map[string]channel.Inbound{},
		senders: map[string]channel.Sender{}, typers: map[string]channel.Typer{}}
	c.add(app.IntegrationInternal, widget.Sender{})
	c.add(telegram.Type, &telegram.Connector{PublicURL: cfg.HTTP.PublicURL, Store: store,
		API: &telegram.Client{BaseURL: cfg.Channels.Telegram.APIURL, HTTP: &http.Client{Timeout: time.Minute}}})
	return c
}

// wireDelivery makes the worker that sends replies, with a sender per channel type, and the
// worker that takes in providers' updates.
func (rt *Runtime) wireDelivery(cfg Config, _ Options) error {
	c := cfg.Channels
	rt.Delivery = &delivery.Worker{Queue: delivery.Store{Service: rt.Service}, Clock: rt.Service.Clock(), Workers: c.Delivery.Workers,
		PerOrg: c.Delivery.MaxInFlightPerOrg, Tick: c.Delivery.Tick, Timeout: c.Delivery.Timeout,
		Schedule: c.Delivery.RetrySchedule, Log: rt.Log, Senders: rt.channels.senders,
		Rates: map[string]float64{app.IntegrationInternal: c.Internal.RatePerSecond, app.IntegrationEmail: c.Email.RatePerSecond,
			"telegram": c.Telegram.RatePerSecond, "whatsapp": c.WhatsApp.RatePerSecond}}
	spool, err := sqlite.OpenSpool(sqlite.SpoolPath(cfg.DB.Path))
	if err != nil {
		return err
	}
	rt.Spool = spool
	rt.Inbound = &inbound.Worker{Service: rt.Service, Inbound: rt.channels.inbound, Spool: spool, Workers: c.Inbound.Workers,
		Tick: c.Inbound.Tick, Timeout: c.Inbound.Timeout, Log: rt.Log}
	spool.OnPut(rt.Inbound.Relay)
	return nil
}
