package cli

import (
	"errors"
	"time"

	"wsapi/app"
	"wsapi/app/api"
	"wsapi/app/channel"
	"wsapi/app/channel/widget"
	"wsapi/app/delivery"
)

// ChannelsConfig is the channels' part of the configuration (docs/channels.md).
type ChannelsConfig struct {
	Delivery DeliveryConfig `mapstructure:"delivery"`
	Widget   WidgetConfig   `mapstructure:"widget"`
	// Per channel type: sends a second at most (the provider's own limit; 0: none).
	Internal ChannelLimit `mapstructure:"internal"`
	Email    ChannelLimit `mapstructure:"email"`
	Telegram ChannelLimit `mapstructure:"telegram"`
	WhatsApp ChannelLimit `mapstructure:"whatsapp"`
}

// ChannelLimit is one channel type's send rate.
type ChannelLimit struct {
	RatePerSecond float64 `mapstructure:"rate_per_second"`
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

// connectors are the set-up checks of the integration types that need one. None yet: the
// widget and custom need no check, and email, Telegram and WhatsApp are saved FAILED ("not
// available on this server yet") until their connectors land.
func connectors() map[string]app.Connector { return map[string]app.Connector{} }

// wireDelivery makes the worker that sends replies, with a sender per channel type.
func (rt *Runtime) wireDelivery(cfg Config, _ Options) error {
	c := cfg.Channels
	rt.Delivery = &delivery.Worker{Queue: delivery.Store{Service: rt.Service}, Clock: rt.Service.Clock(), Workers: c.Delivery.Workers,
		PerOrg: c.Delivery.MaxInFlightPerOrg, Tick: c.Delivery.Tick, Timeout: c.Delivery.Timeout,
		Schedule: c.Delivery.RetrySchedule, Log: rt.Log,
		Senders: map[string]channel.Sender{app.IntegrationInternal: widget.Sender{}},
		Rates: map[string]float64{app.IntegrationInternal: c.Internal.RatePerSecond, app.IntegrationEmail: c.Email.RatePerSecond,
			"telegram": c.Telegram.RatePerSecond, "whatsapp": c.WhatsApp.RatePerSecond}}
	return nil
}
