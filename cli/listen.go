package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"wsapi/app"
)

// listenKeyEnv is where `app listen` reads its API key when --key is not given: a key on the
// command line shows in the shell history and in `ps`.
const listenKeyEnv = "APP_API_KEY"

// listenOptions are the flags of `app listen`.
type listenOptions struct {
	forwardTo  string
	events     []string
	api        string
	key        string
	org        string
	replayFrom int64
	timeout    time.Duration
}

func listenCmd(e *env) *cobra.Command {
	o := listenOptions{}
	c := &cobra.Command{
		Use:   "listen --forward-to URL",
		Short: "Forward the organization's events to a local URL as signed webhook deliveries",
		Long: `listen connects to the organization event stream (GET /orgs/{org}/events/stream) and
POSTs each event to --forward-to exactly as a webhook delivery: the same envelope, the same
x-webhook-* headers and the same signature, with a signing secret made for this session and
printed at start. It prints one line per event with the local answer's status and latency,
and reconnects after a dropped connection or a server restart, resuming after the last
event it forwarded. See docs/clients.md.

The key comes from --key or the ` + listenKeyEnv + ` environment variable.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("replay-from") {
				o.replayFrom = -1
			}
			if o.key == "" {
				o.key = os.Getenv(listenKeyEnv)
			}
			if o.api == "" {
				o.api = localAPI(e.cfg.HTTP.PublicURL)
			}
			l, err := newListener(o, e)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			return l.run(ctx)
		},
	}
	f := c.Flags()
	f.StringVar(&o.forwardTo, "forward-to", "", "local URL that receives the deliveries (required)")
	f.StringSliceVar(&o.events, "events", nil, "forward only these event types (comma-separated; default every type the key may read)")
	f.StringVar(&o.api, "api", "", "API base URL (default http.public_url of the configuration)")
	f.StringVar(&o.key, "key", "", "API key sk_... (default $"+listenKeyEnv+")")
	f.StringVar(&o.org, "org", "c", "organization to listen to: an id, or c for the key's own")
	f.Int64Var(&o.replayFrom, "replay-from", 0, "first resend the stored events from this stream id on (the id column of the printed lines)")
	f.DurationVar(&o.timeout, "timeout", 10*time.Second, "how long one local delivery may take")
	return c
}

// validate names every bad flag at once, as the API names every bad field.
func (o listenOptions) validate() error {
	p := app.Problems{}
	if o.forwardTo == "" {
		p.Add("forward-to", "is required: the local URL of your receiver")
	} else if u, err := url.Parse(o.forwardTo); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		p.Add("forward-to", "must be an http:// or https:// URL")
	}
	if u, err := url.Parse(o.api); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		p.Add("api", "must be an http:// or https:// URL")
	}
	if o.key == "" {
		p.Add("key", "is required: pass --key or set "+listenKeyEnv)
	}
	if o.org == "" || strings.ContainsAny(o.org, "/?#") {
		p.Add("org", "must be an organization id or c")
	}
	if o.replayFrom < -1 {
		p.Add("replay-from", "must be a stream id (0 or more)")
	}
	if o.timeout <= 0 {
		p.Add("timeout", "must be positive")
	}
	for _, t := range o.events {
		if strings.TrimSpace(t) == "" {
			p.Add("events", "holds an empty type")
		}
	}
	if err := p.Err(); err != nil {
		return err
	}
	return nil
}

// localAPI is the configured public URL with an unspecified host (0.0.0.0, ::) replaced by
// loopback: a server that listens everywhere is reached locally on 127.0.0.1.
func localAPI(publicURL string) string {
	u, err := url.Parse(publicURL)
	if err != nil || u.Host == "" {
		return publicURL
	}
	host, port, err := net.SplitHostPort(u.Host)
	if err != nil {
		return strings.TrimRight(publicURL, "/")
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		u.Host = net.JoinHostPort("127.0.0.1", port)
	}
	return strings.TrimRight(u.String(), "/")
}

// apiError is an answer of the API that is not a success: a 4xx ends listen (retrying cannot
// help a bad key or an unknown type), anything else is retried.
type apiError struct {
	status int
	msg    string
}

func (e *apiError) Error() string { return fmt.Sprintf("the API answered %d: %s", e.status, e.msg) }

// fatal tells whether err should end listen rather than be retried.
func fatal(err error) bool {
	var ae *apiError
	return errors.As(err, &ae) && ae.status >= 400 && ae.status < 500 && ae.status != http.StatusTooManyRequests &&
		ae.status != http.StatusRequestTimeout
}

// resolveOrg answers the organization's id: the flag when it is one, else GET /orgs/{org}.
func (l *listener) resolveOrg(ctx context.Context) (string, error) {
	if strings.HasPrefix(l.org, "org_") {
		return l.org, nil
	}
	var org struct {
		ID string `json:"id"`
	}
	if err := l.getJSON(ctx, "/orgs/"+url.PathEscape(l.org), &org); err != nil {
		var ae *apiError
		if errors.As(err, &ae) && ae.status == http.StatusForbidden {
			return "", fmt.Errorf("%w (the key may not read its organization: pass --org ORG_ID)", err)
		}
		return "", err
	}
	return org.ID, nil
}
