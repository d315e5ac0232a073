package cli

import (
	"wsapi/app"
	"wsapi/app/channel/whatsapp"
)

// WhatsAppConfig is the WhatsApp Cloud API channel's configuration: its send rate and the
// Graph API base URL (version included), which tests point at a local server.
type WhatsAppConfig struct {
	RatePerSecond float64 `mapstructure:"rate_per_second"`
	APIURL        string  `mapstructure:"api_url"`
}

func init() { defaults["channels.whatsapp.api_url"] = whatsapp.DefaultAPIURL }

// whatsappClient is the Graph API client of the configured base URL (not a tenant's URL:
// it goes out without app/safehttp).
func (c ChannelsConfig) whatsappClient() *whatsapp.Client {
	return whatsapp.NewClient(c.WhatsApp.APIURL)
}

// whatsappSender sends WhatsApp replies for the delivery worker.
func (rt *Runtime) whatsappSender(cfg Config) whatsapp.Sender {
	return whatsapp.Sender{Client: cfg.Channels.whatsappClient(), Store: rt.Service.Store, Clock: rt.Service.Clock}
}

// whatsappConnector checks a WhatsApp integration's set-up on save.
func whatsappConnector(cfg Config) app.Connector {
	return whatsapp.Connector{Client: cfg.Channels.whatsappClient()}
}
