package app

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Knowledge content types and statuses.
var (
	KnowledgeTypes    = []string{"TEXT", "FILE", "URL"}
	KnowledgeStatuses = []string{"PENDING", "PROCESSING", "PROCESSED", "FAILED"}
)

// KnowledgeBody is the content object with its type discriminator.
type KnowledgeBody struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	URL      string `json:"url,omitempty"`
	MaxPages int    `json:"max_pages,omitempty"`
	Filename string `json:"filename,omitempty"`
	Mimetype string `json:"mimetype,omitempty"`
}

// KnowledgeContent is a piece of an assistant's knowledge.
type KnowledgeContent struct {
	ID              string             `json:"id"`
	Title           string             `json:"title"`
	Type            string             `json:"type"`
	Content         KnowledgeBody      `json:"content"`
	Size            int64              `json:"size"`
	ChunksProcessed int                `json:"chunks_processed"`
	ChunksCount     int                `json:"chunks_count"`
	Error           *string            `json:"error"`
	Status          string             `json:"status"`
	CreatedAt       Time               `json:"created_at"`
	UpdatedAt       Time               `json:"updated_at"`
	ParentContentID *string            `json:"parent_content_id,omitempty"`
	Children        []KnowledgeContent `json:"children,omitempty"`
	OrgID           string             `json:"-"`
	AssistantID     string             `json:"-"`
	Data            []byte             `json:"-"` // a FILE's bytes
}

// KnowledgeFilter narrows the contents list.
type KnowledgeFilter struct {
	Search string
	Type   string
	Status string
}

// KnowledgeCursor is the (created_at, id) of the last content of a page.
type KnowledgeCursor struct {
	CreatedAt string `json:"c"`
	ID        string `json:"id"`
}

// Chunk is a searchable piece of processed content.
type Chunk struct {
	ContentID string  `json:"content_id"`
	Title     string  `json:"title"`
	Position  int     `json:"position"`
	Text      string  `json:"text"`
	Score     float64 `json:"score"`
}

// KnowledgeTx is the knowledge part of a transaction.
type KnowledgeTx interface {
	CreateKnowledge(k KnowledgeContent) error
	GetKnowledge(orgID, assistantID, id string) (KnowledgeContent, error)
	// GetKnowledgeData reads a FILE's bytes.
	GetKnowledgeData(id string) ([]byte, error)
	ListKnowledge(orgID, assistantID string, f KnowledgeFilter, after *KnowledgeCursor, offset, limit int) ([]KnowledgeContent, int, error)
	DeleteKnowledge(orgID, assistantID, id string) error
	// ClaimKnowledge leases PENDING contents, and PROCESSING ones whose lease ran out (their
	// process died), as many as room allows and picked as room.Pick does (queues are
	// assistants), and marks them PROCESSING.
	ClaimKnowledge(now, leaseUntil Time, room ClaimRoom) ([]KnowledgeContent, error)
	// AnyKnowledgeDue tells, cheaply and on a reader, whether a claim may find work.
	AnyKnowledgeDue(now Time) (bool, error)
	// ResetKnowledge drops a content's chunks and children before it is processed again.
	ResetKnowledge(id string) error
	SetKnowledgeProgress(k KnowledgeContent) error
	AddChunks(k KnowledgeContent, first int, texts []string) error
	SearchChunks(orgID, assistantID, query string, limit int) ([]Chunk, error)
}

// KnowledgeInput creates TEXT or URL content (FILE comes as a multipart upload).
type KnowledgeInput struct {
	Title   string        `json:"title"`
	Content KnowledgeBody `json:"content"`
}

// MaxKnowledgeFile is the largest FILE accepted.
const MaxKnowledgeFile = 10 << 20

// KnowledgeMimetypes maps accepted upload extensions to their types.
var KnowledgeMimetypes = map[string]string{".txt": "text/plain", ".md": "text/markdown", ".html": "text/html",
	".htm": "text/html", ".pdf": "application/pdf"}

func (s *Service) validateKnowledge(in *KnowledgeInput) error {
	p := Problems{}
	if CharCount(in.Title) > 255 {
		p.Add("title", "must be at most 255 characters")
	}
	switch in.Content.Type {
	case "TEXT":
		if Blank(in.Content.Text) || len(in.Content.Text) > MaxKnowledgeFile {
			p.Add("content.text", "must be 1 character to 10 MiB, not blank")
		}
		if Blank(in.Title) {
			p.Add("title", "is required for TEXT content")
		}
	case "URL":
		u, err := url.Parse(in.Content.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			p.Add("content.url", "must be an http or https URL without credentials")
		}
		if in.Content.MaxPages == 0 {
			in.Content.MaxPages = s.d.KnowledgeMaxPages
		}
		if in.Content.MaxPages < 1 || in.Content.MaxPages > s.d.KnowledgeMaxPages {
			p.Add("content.max_pages", "must be from 1 to "+itoa(s.d.KnowledgeMaxPages))
		}
		if in.Title == "" {
			in.Title = in.Content.URL
		}
	default:
		p.Add("content.type", "must be TEXT or URL (FILE is a multipart upload)")
	}
	return p.Err()
}

// CreateKnowledge adds TEXT or URL content, PENDING until the processor takes it.
func (s *Service) CreateKnowledge(ctx context.Context, orgID, assistantID string, in KnowledgeInput) (KnowledgeContent, error) {
	if err := s.validateKnowledge(&in); err != nil {
		return KnowledgeContent{}, err
	}
	body := KnowledgeBody{Type: in.Content.Type, Text: in.Content.Text, URL: in.Content.URL, MaxPages: in.Content.MaxPages}
	size := int64(len(body.Text))
	return s.insertKnowledge(ctx, orgID, assistantID, strings.TrimSpace(in.Title), in.Content.Type, body, size, nil)
}

// CreateKnowledgeFile adds an uploaded txt, md, html or pdf file.
func (s *Service) CreateKnowledgeFile(ctx context.Context, orgID, assistantID, title, filename string, data []byte) (KnowledgeContent, error) {
	p := Problems{}
	dot := strings.LastIndex(filename, ".")
	mimetype := ""
	if dot >= 0 {
		mimetype = KnowledgeMimetypes[strings.ToLower(filename[dot:])]
	}
	if mimetype == "" {
		p.Add("file", "must be a .txt, .md, .html or .pdf file")
	}
	if len(data) == 0 || len(data) > MaxKnowledgeFile {
		p.Add("file", "must be 1 byte to 10 MiB")
	}
	if CharCount(title) > 255 {
		p.Add("title", "must be at most 255 characters")
	}
	if err := p.Err(); err != nil {
		return KnowledgeContent{}, err
	}
	if Blank(title) {
		title = filename
	}
	body := KnowledgeBody{Type: "FILE", Filename: filename, Mimetype: mimetype}
	return s.insertKnowledge(ctx, orgID, assistantID, strings.TrimSpace(title), "FILE", body, int64(len(data)), data)
}

func (s *Service) insertKnowledge(ctx context.Context, orgID, assistantID, title, typ string, body KnowledgeBody, size int64, data []byte) (k KnowledgeContent, err error) {
	now := s.now()
	k = KnowledgeContent{ID: NewID("kc"), OrgID: orgID, AssistantID: assistantID, Title: title, Type: typ, Content: body,
		Size: size, Status: "PENDING", CreatedAt: now, UpdatedAt: now, Data: data}
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		if err := liveAssistant(tx, orgID, assistantID); err != nil {
			return err
		}
		return tx.CreateKnowledge(k)
	})
	return k, err
}

// GetKnowledge reads a content with its children.
func (s *Service) GetKnowledge(ctx context.Context, orgID, assistantID, id string) (k KnowledgeContent, err error) {
	err = s.d.Store.Read(ctx, func(tx Tx) error {
		if err := liveAssistant(tx, orgID, assistantID); err != nil {
			return err
		}
		k, err = tx.GetKnowledge(orgID, assistantID, id)
		return err
	})
	return k, err
}

// liveAssistant answers 404 for an assistant that does not exist or was deleted, whose
// knowledge is out of reach like the assistant itself.
func liveAssistant(tx Tx, orgID, assistantID string) error {
	if a, err := tx.GetAssistant(orgID, assistantID); err != nil || a.Deleted {
		return NotFound("assistant")
	}
	return nil
}

// ListKnowledge lists top-level contents, newest first, by page or cursor.
func (s *Service) ListKnowledge(ctx context.Context, orgID, assistantID string, f KnowledgeFilter, next string, pg Page) (l List[KnowledgeContent], err error) {
	p := Problems{}
	validateSearch(p, f.Search, false)
	if f.Type != "" && f.Type != "ALL" && !slices.Contains(KnowledgeTypes, f.Type) {
		p.Add("type", "must be ALL, TEXT, FILE or URL")
	}
	if f.Status != "" && f.Status != "ALL" && !slices.Contains(KnowledgeStatuses, f.Status) {
		p.Add("status", "must be ALL, PENDING, PROCESSING, PROCESSED or FAILED")
	}
	scope := listScope("knowledge", orgID, assistantID, f)
	after, err := parseCursor[KnowledgeCursor](next, scope)
	if e, ok := AsError(err); ok {
		p.Add("next", e.Fields["next"]) // with the other fields' problems
	}
	if err := p.Err(); err != nil {
		return l, err
	}
	err = s.d.Store.Read(ctx, func(tx Tx) error {
		if err := liveAssistant(tx, orgID, assistantID); err != nil {
			return err
		}
		l.Items, l.Total, err = tx.ListKnowledge(orgID, assistantID, f, after, windowOffset(after, pg), pg.Take+1)
		return err
	})
	if err == nil {
		trimPage(&l, pg.Take, scope, func(k KnowledgeContent) KnowledgeCursor {
			return KnowledgeCursor{CreatedAt: k.CreatedAt.String(), ID: k.ID}
		})
	}
	return l, err
}

// DeleteKnowledge removes a content with its chunks and children.
func (s *Service) DeleteKnowledge(ctx context.Context, orgID, assistantID, id string) error {
	return s.d.Store.Write(ctx, func(tx Tx) error {
		if err := liveAssistant(tx, orgID, assistantID); err != nil {
			return err
		}
		return tx.DeleteKnowledge(orgID, assistantID, id)
	})
}

// RetryKnowledge queues a content again: a FAILED one to retry, a URL one to re-crawl.
func (s *Service) RetryKnowledge(ctx context.Context, orgID, assistantID, id string) (k KnowledgeContent, err error) {
	err = s.d.Store.Write(ctx, func(tx Tx) error {
		if err := liveAssistant(tx, orgID, assistantID); err != nil {
			return err
		}
		if k, err = tx.GetKnowledge(orgID, assistantID, id); err != nil {
			return err
		}
		if k.ParentContentID != nil {
			return Conflict("retry the parent content %s: it re-crawls its pages", *k.ParentContentID)
		}
		if k.Status != "FAILED" && !(k.Type == "URL" && k.Status == "PROCESSED") {
			return Conflict("only FAILED content, or PROCESSED URL content (to refresh it), can be retried")
		}
		k.Status, k.Error, k.UpdatedAt = "PENDING", nil, s.now()
		if err := tx.SetKnowledgeProgress(k); err != nil {
			return err
		}
		k, err = tx.GetKnowledge(orgID, assistantID, id)
		return err
	})
	return k, err
}

// SearchKnowledge answers an assistant's best chunks for a query (bm25).
func (s *Service) SearchKnowledge(ctx context.Context, orgID, assistantID, query string, limit int) (cs []Chunk, err error) {
	p := Problems{}
	if validateSearch(p, query, true); len(p) > 0 {
		return nil, p.Err()
	}
	err = s.d.Store.Read(ctx, func(tx Tx) error {
		if err := liveAssistant(tx, orgID, assistantID); err != nil {
			return err
		}
		cs, err = tx.SearchChunks(orgID, assistantID, query, limit)
		return err
	})
	return cs, err
}

// KnowledgeLease is how long the processor holds a content; past it a dead process's work
// is taken again.
const KnowledgeLease = 5 * time.Minute
