package knowledge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"time"

	"wsapi/app"
	"wsapi/app/claim"
)

// MaxPageBytes bounds what one fetched page may weigh.
const MaxPageBytes = 5 << 20

// Processor moves contents PENDING -> PROCESSING -> PROCESSED or FAILED, Workers at a time,
// claimed round-robin across organizations (and their assistants) with at most PerOrg of one
// organization in flight, so one organization's slow crawls cannot hold up another's content.
type Processor struct {
	Service Contents
	HTTP    *http.Client // the SSRF-guarded client
	Extract *Extractor   // runs the PDF and HTML parsers, bounded
	Tick    time.Duration
	Workers int // contents processed at once (at least 1)
	PerOrg  int // contents of one organization processed at once (0: app.OrgShare's default)
	Log     *slog.Logger

	loop claim.Loop
}

// Contents is what the processor needs of the domain (app.Service has it).
type Contents interface {
	ClaimKnowledge(ctx context.Context, room app.ClaimRoom) ([]app.KnowledgeContent, error)
	SaveChunks(ctx context.Context, k *app.KnowledgeContent, texts []string) error
	SetChunkTotal(ctx context.Context, k *app.KnowledgeContent, n int) error
	FinishKnowledge(ctx context.Context, k *app.KnowledgeContent, failure error) error
	AddCrawledPage(ctx context.Context, parent app.KnowledgeContent, pageURL, title string, size int64) (app.KnowledgeContent, error)
}

// Nudge asks for a claim now rather than at the next tick (a content was added or retried,
// one finished).
func (p *Processor) Nudge() { p.loop.Nudge() }

// WaitIdle waits until nothing is due, claimed or under way (claim.Loop.WaitIdle).
func (p *Processor) WaitIdle(ctx context.Context) error { return p.loop.WaitIdle(ctx) }

// Run processes contents until ctx ends, then waits for those under way.
func (p *Processor) Run(ctx context.Context) {
	slots := max(1, p.Workers)
	perOrg := app.OrgShare(p.PerOrg, slots)
	p.loop.Slots, p.loop.Tick, p.loop.Log = slots, p.Tick, p.Log
	p.loop.Run(ctx, func(ctx context.Context, r claim.Round) []claim.Piece {
		return p.claim(ctx, app.ClaimRoom{Limit: r.Free, PerOrg: perOrg, Org: r.Org, Queue: r.Queue, LookFirst: r.Idle})
	})
}

// claim takes the contents the room allows, each a piece of work.
func (p *Processor) claim(ctx context.Context, room app.ClaimRoom) []claim.Piece {
	ks, err := p.Service.ClaimKnowledge(ctx, room)
	if claim.Failed(ctx, p.Log, "knowledge: claim", err) {
		return nil
	}
	return claim.Each(ks, func(k app.KnowledgeContent) claim.Piece {
		return claim.Piece{Org: k.OrgID, Queue: k.AssistantID, Run: func() { p.next(ctx, k) }}
	})
}

// next processes one claimed content.
func (p *Processor) next(ctx context.Context, k app.KnowledgeContent) {
	failure := app.Safely(func() error { return p.process(ctx, &k) })
	if ctx.Err() != nil {
		return // shutdown: the lease brings the content back after a restart
	}
	if _, ok := app.IsPanic(failure); ok {
		// A bug of ours, not of the content: the detail goes to the log, not to the tenant.
		app.LogFailure(p.Log, "knowledge: process", failure, "content", k.ID)
		failure = errors.New("could not process this content: an internal error, reported in the server log")
	}
	if failure != nil {
		p.Log.Warn("knowledge: content failed", "org", k.OrgID, "assistant", k.AssistantID, "content", k.ID,
			"type", k.Type, "err", failure)
	}
	if err := p.Service.FinishKnowledge(ctx, &k, failure); err != nil {
		p.Log.Error("knowledge: finish", "content", k.ID, "err", err)
	}
}

func (p *Processor) process(ctx context.Context, k *app.KnowledgeContent) error {
	switch k.Type {
	case "TEXT":
		return p.store(ctx, k, k.Content.Text)
	case "FILE":
		page, err := p.Extract.Extract(ctx, k.Content.Mimetype, k.Data, nil)
		if err != nil {
			return err
		}
		return p.store(ctx, k, page.Text)
	case "URL":
		return p.crawl(ctx, k)
	}
	return fmt.Errorf("unknown content type %s", k.Type)
}

// store chunks the text and saves the chunks in batches, so progress shows as it goes.
func (p *Processor) store(ctx context.Context, k *app.KnowledgeContent, text string) error {
	chunks := Chunk(text, ChunkSize)
	if len(chunks) == 0 {
		return errors.New("no text to learn from")
	}
	if err := p.Service.SetChunkTotal(ctx, k, len(chunks)); err != nil {
		return err
	}
	for start := 0; start < len(chunks); start += 50 {
		if err := p.Service.SaveChunks(ctx, k, chunks[start:min(start+50, len(chunks))]); err != nil {
			return err
		}
	}
	return nil
}

// crawl fetches the URL into the content itself and then same-host links, breadth first,
// each page a child content, until max_pages pages in all.
func (p *Processor) crawl(ctx context.Context, root *app.KnowledgeContent) error {
	start, err := url.Parse(root.Content.URL)
	if err != nil {
		return err
	}
	page, err := p.fetch(ctx, start)
	if err != nil {
		return err
	}
	root.Size = int64(len(page.Text))
	if err := p.store(ctx, root, page.Text); err != nil {
		return err
	}
	seen := map[string]bool{start.String(): true}
	queue := sameHost(start, page.Links, seen)
	for pages := 1; pages < root.Content.MaxPages && len(queue) > 0; pages++ {
		next := queue[0]
		queue = queue[1:]
		child, links := p.crawlPage(ctx, *root, next)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if child != nil {
			queue = append(queue, sameHost(start, links, seen)...)
		}
	}
	return nil
}

// crawlPage stores one page of a crawl as a child and answers its links.
func (p *Processor) crawlPage(ctx context.Context, root app.KnowledgeContent, u *url.URL) (*app.KnowledgeContent, []*url.URL) {
	page, fetchErr := p.fetch(ctx, u)
	title := page.Title
	if title == "" {
		title = u.String()
	}
	child, err := p.Service.AddCrawledPage(ctx, root, u.String(), title, int64(len(page.Text)))
	if err != nil {
		p.Log.Error("knowledge: crawl page", "url", u.String(), "err", err)
		return nil, nil
	}
	if fetchErr == nil {
		fetchErr = p.store(ctx, &child, page.Text)
	}
	if err := p.Service.FinishKnowledge(ctx, &child, fetchErr); err != nil {
		p.Log.Error("knowledge: crawl page", "url", u.String(), "err", err)
	}
	return &child, page.Links
}

func sameHost(start *url.URL, links []*url.URL, seen map[string]bool) []*url.URL {
	var out []*url.URL
	for _, l := range links {
		if l.Host != start.Host || seen[l.String()] {
			continue
		}
		seen[l.String()] = true
		out = append(out, l)
	}
	return out
}

// fetch GETs a page through the guarded client; HTML becomes text, plain text stays.
func (p *Processor) fetch(ctx context.Context, u *url.URL) (Page, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return Page{}, err
	}
	req.Header.Set("User-Agent", "workspace-api-knowledge/1")
	res, err := p.HTTP.Do(req)
	if err != nil {
		return Page{}, fmt.Errorf("fetch %s: %w", u, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return Page{}, fmt.Errorf("fetch %s: HTTP %d", u, res.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, MaxPageBytes))
	if err != nil {
		return Page{}, fmt.Errorf("fetch %s: %w", u, err)
	}
	mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
	switch mt {
	case "text/html", "application/xhtml+xml":
		return p.Extract.Extract(ctx, mt, body, u)
	case "text/plain", "text/markdown":
		return Page{Text: string(body)}, nil
	}
	return Page{}, fmt.Errorf("fetch %s: unsupported content type %q", u, mt)
}
