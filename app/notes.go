package app

import (
	"context"
	"slices"
	"strings"
)

// Note is a member's note on a contact.
type Note struct {
	ID        string `json:"id"`
	ContactID string `json:"contact_id"`
	Content   string `json:"content"`
	CreatedAt Time   `json:"created_at"`
	UpdatedAt Time   `json:"updated_at"`
	User      User   `json:"user"`
	OrgID     string `json:"-"`
}

// Memory types.
var MemoryTypes = []string{"FACT", "PREFERENCE", "GOAL", "EXPERIENCE"}

// Memory is something learned about a contact, ranked by importance.
type Memory struct {
	ID         string  `json:"id"`
	Content    string  `json:"content"`
	UserID     string  `json:"user_id"`
	ContactID  string  `json:"contact_id"`
	Type       string  `json:"type"`
	Importance float64 `json:"importance"`
	CreatedAt  Time    `json:"created_at"`
	UpdatedAt  Time    `json:"updated_at"`
	OrgID      string  `json:"-"`
}

// MemoryCursor is the position after which the next page of memories starts.
type MemoryCursor struct {
	Importance float64 `json:"i"`
	CreatedAt  string  `json:"c"`
	ID         string  `json:"id"`
}

// NoteTx is the notes and memories part of a transaction.
type NoteTx interface {
	CreateNote(n Note) error
	ListNotes(orgID, contactID string, p Page) ([]Note, int, error)
	DeleteNote(orgID, contactID, id string) error
	CreateMemory(m Memory) error
	// ListMemories sorts by importance desc, created_at desc, id desc and answers up to
	// limit rows after the cursor when one is given, else after offset rows; and the total.
	ListMemories(orgID, contactID string, after *MemoryCursor, offset, limit int) ([]Memory, int, error)
	DeleteMemory(orgID, contactID, id string) error
}

// NoteInput adds a note.
type NoteInput struct {
	Content string `json:"content"`
}

// MemoryInput adds a memory.
type MemoryInput struct {
	Type       string   `json:"type"`
	Importance *float64 `json:"importance"`
	Content    string   `json:"content"`
}

// CreateNote adds a note authored by the caller's member.
func (s *Service) CreateNote(ctx context.Context, c Caller, contactID string, in NoteInput) (Note, error) {
	p := Problems{}
	validateText(p, "content", in.Content, true, 1000)
	if err := p.Err(); err != nil {
		return Note{}, err
	}
	now := s.now()
	n := Note{ID: NewID("note"), OrgID: c.OrgID, ContactID: contactID, Content: in.Content, CreatedAt: now,
		UpdatedAt: now, User: c.Member.User()}
	err := s.d.Store.Write(ctx, func(tx Tx) error {
		if _, err := tx.GetContact(c.OrgID, contactID); err != nil {
			return err
		}
		return tx.CreateNote(n)
	})
	return n, err
}

// ListNotes lists a contact's notes, newest first.
func (s *Service) ListNotes(ctx context.Context, orgID, contactID string, pg Page) (l List[Note], err error) {
	err = s.d.Store.Read(ctx, func(tx Tx) error {
		if _, err := tx.GetContact(orgID, contactID); err != nil {
			return err
		}
		l.Items, l.Total, err = tx.ListNotes(orgID, contactID, pg)
		return err
	})
	return l, err
}

// DeleteNote removes a note.
func (s *Service) DeleteNote(ctx context.Context, orgID, contactID, id string) error {
	return s.d.Store.Write(ctx, func(tx Tx) error { return tx.DeleteNote(orgID, contactID, id) })
}

// CreateMemory records a memory about a contact.
func (s *Service) CreateMemory(ctx context.Context, c Caller, contactID string, in MemoryInput) (Memory, error) {
	p := Problems{}
	if !slices.Contains(MemoryTypes, in.Type) {
		p.Add("type", "must be one of "+strings.Join(MemoryTypes, ", "))
	}
	if in.Importance == nil || *in.Importance < 0 || *in.Importance > 1 {
		p.Add("importance", "must be a number from 0 to 1")
	}
	validateText(p, "content", in.Content, true, 10000)
	if err := p.Err(); err != nil {
		return Memory{}, err
	}
	now := s.now()
	m := Memory{OrgID: c.OrgID, ContactID: contactID, UserID: c.Member.ID, Type: in.Type,
		Importance: *in.Importance, Content: in.Content, CreatedAt: now, UpdatedAt: now}
	m.ID = NewID("cmem")
	err := s.d.Store.Write(ctx, func(tx Tx) error {
		if _, err := tx.GetContact(c.OrgID, contactID); err != nil {
			return err
		}
		return tx.CreateMemory(m)
	})
	return m, err
}

// ListMemories lists a contact's memories, most important first, by page or by cursor.
func (s *Service) ListMemories(ctx context.Context, orgID, contactID, next string, pg Page) (l List[Memory], err error) {
	scope := listScope("memories", orgID, contactID)
	after, err := parseCursor[MemoryCursor](next, scope)
	if err != nil {
		return l, err
	}
	err = s.d.Store.Read(ctx, func(tx Tx) error {
		if _, err := tx.GetContact(orgID, contactID); err != nil {
			return err
		}
		l.Items, l.Total, err = tx.ListMemories(orgID, contactID, after, windowOffset(after, pg), pg.Take+1)
		return err
	})
	if err == nil {
		trimPage(&l, pg.Take, scope, func(m Memory) MemoryCursor {
			return MemoryCursor{Importance: m.Importance, CreatedAt: m.CreatedAt.String(), ID: m.ID}
		})
	}
	return l, err
}

// DeleteMemory removes a memory.
func (s *Service) DeleteMemory(ctx context.Context, orgID, contactID, id string) error {
	return s.d.Store.Write(ctx, func(tx Tx) error { return tx.DeleteMemory(orgID, contactID, id) })
}
