package mailbox

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"

	"wsapi/app"
	"wsapi/app/channel"
)

// maxTries is how often one mail is offered to the importer before it is skipped (logged),
// so a mail the receiver cannot take never blocks the mailbox behind it.
const maxTries = 3

// session opens an integration's mailbox, imports what is new, and, where the server offers
// IDLE, stays open: new mail is imported when the server announces it, and every poll
// interval the session checks the integration again (a fresh pass) or gives way to others
// waiting for a connection (yielded). A mailbox that cannot be opened marks the integration
// FAILED with the reason; one opened marks it ACTIVE.
func (p *Poller) session(ctx context.Context, id string) (yielded bool, err error) {
	d, err := p.load(ctx, id)
	if app.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	s, ok := SettingsOf(d)
	if !ok {
		return false, nil
	}
	wake := make(chan struct{}, 1)
	c, err := p.Dialer.open(ctx, s, func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	})
	if ctx.Err() != nil {
		return false, nil
	}
	p.record(ctx, d, err)
	if err != nil {
		return false, nil // recorded on the integration, tried again next interval
	}
	defer c.close()
	var tick <-chan time.Time
	for {
		more, err := p.pass(ctx, d, s, c)
		if err != nil || !c.idle {
			return false, err
		}
		if more {
			if p.waiting.Load() > 0 {
				return true, nil
			}
			continue
		}
		if tick == nil {
			tick = p.after(p.Interval)
		}
		woke, err := p.idle(ctx, c, wake, tick)
		if err != nil || ctx.Err() != nil {
			return false, err
		}
		if woke {
			continue
		}
		tick = nil
		if p.waiting.Load() > 0 {
			return true, nil
		}
		again, err := p.load(ctx, id)
		if err != nil || again.UpdatedAt != d.UpdatedAt {
			return false, nil // changed or deleted: the next round starts from the new settings
		}
		// Selected again, so a mailbox made anew under the open connection (a new
		// UIDVALIDITY) is seen.
		if c.selected, err = c.c.Select(s.Mailbox, &imap.SelectOptions{ReadOnly: true}).Wait(); err != nil {
			return false, fmt.Errorf("SELECT: %w", err)
		}
	}
}

// idle waits in IDLE for new mail (true), the tick or the end of ctx (false).
func (p *Poller) idle(ctx context.Context, c *conn, wake <-chan struct{}, tick <-chan time.Time) (bool, error) {
	cmd, err := c.c.Idle()
	if err != nil {
		return false, fmt.Errorf("IDLE: %w", err)
	}
	woke := false
	select {
	case <-wake:
		woke = true
	case <-tick:
	case <-ctx.Done():
	case <-c.c.Closed():
	}
	if err := cmd.Close(); err != nil {
		return woke, fmt.Errorf("IDLE: %w", err)
	}
	if err := cmd.Wait(); err != nil && ctx.Err() == nil {
		return woke, fmt.Errorf("IDLE: %w", err)
	}
	return woke, nil
}

// pass imports the mail new since the cursor. With a cursor of this mailbox and its
// UIDVALIDITY it takes the UIDs after the last one, PerPass at most (more: some are left).
// Without one (a new integration, or another mailbox) it takes the unread mail. After a
// UIDVALIDITY change (UIDs renumbered) it takes the mail from the day before the last one
// imported, and the receiver's Message-ID check drops what was imported already.
func (p *Poller) pass(ctx context.Context, d app.Deployment, s Settings, c *conn) (more bool, err error) {
	cur, ok, err := p.Store.Cursor(ctx, d.ID)
	if err != nil {
		return false, err
	}
	sel := c.selected
	incremental := ok && cur.Key == s.key() && cur.UIDValidity == sel.UIDValidity
	var crit imap.SearchCriteria
	switch {
	case incremental:
		crit.UID = []imap.UIDSet{{{Start: imap.UID(cur.LastUID + 1), Stop: 0}}}
	case ok && cur.Key == s.key() && !cur.LastDate.IsZero():
		crit.Since = cur.LastDate.AddDate(0, 0, -1)
	default:
		crit.NotFlag = []imap.Flag{imap.FlagSeen}
		cur.LastDate = time.Time{}
	}
	found, err := c.c.UIDSearch(&crit, nil).Wait()
	if err != nil {
		return false, fmt.Errorf("SEARCH: %w", err)
	}
	uids := slices.Sorted(slices.Values(found.AllUIDs()))
	if incremental {
		uids = slices.DeleteFunc(uids, func(u imap.UID) bool { return uint32(u) <= cur.LastUID })
		if len(uids) > p.PerPass {
			uids, more = uids[:p.PerPass], true
		}
	}
	cur.Key, cur.UIDValidity = s.key(), sel.UIDValidity
	if err := p.importAll(ctx, d, c, uids, &cur, incremental); err != nil {
		return false, err
	}
	if !incremental { // from now on: the UIDs after everything the mailbox holds now
		top, err := highestUID(c, sel)
		if err != nil {
			return false, err
		}
		cur.LastUID = max(cur.LastUID, top)
		if err := p.Store.SaveCursor(ctx, d.ID, d.OrgID, cur); err != nil {
			return false, err
		}
	}
	return more, nil
}

// importAll imports the mails of uids in order. Incremental, the cursor moves past each mail
// as it is imported, so a crash repeats at most the one being imported.
func (p *Poller) importAll(ctx context.Context, d app.Deployment, c *conn, uids []imap.UID, cur *Cursor, incremental bool) error {
	if len(uids) == 0 {
		return nil
	}
	meta, err := c.c.Fetch(imap.UIDSetNum(uids...), &imap.FetchOptions{UID: true, InternalDate: true, RFC822Size: true}).Collect()
	if err != nil {
		return fmt.Errorf("FETCH: %w", err)
	}
	byUID := map[imap.UID]*imapclient.FetchMessageBuffer{}
	for _, m := range meta {
		byUID[m.UID] = m
	}
	for _, uid := range uids {
		m := byUID[uid]
		if m == nil {
			continue // expunged meanwhile
		}
		if err := p.importOne(ctx, d, c, m); err != nil {
			return err
		}
		cur.LastUID = max(cur.LastUID, uint32(uid))
		if m.InternalDate.After(cur.LastDate) {
			cur.LastDate = m.InternalDate
		}
		if incremental {
			if err := p.Store.SaveCursor(ctx, d.ID, d.OrgID, *cur); err != nil {
				return err
			}
		}
	}
	return nil
}

// importOne streams one mail's body to the importer. A mail over MaxBytes, or one the
// importer failed maxTries times, is skipped with a log line.
func (p *Poller) importOne(ctx context.Context, d app.Deployment, c *conn, m *imapclient.FetchMessageBuffer) error {
	log := p.Log.With("assistant_integration_id", d.ID, "uid", uint32(m.UID))
	if p.MaxBytes > 0 && m.RFC822Size > p.MaxBytes {
		log.Warn("mailbox: mail larger than email.inbound.max_bytes skipped", "bytes", m.RFC822Size)
		return nil
	}
	key := fmt.Sprintf("%s/%d/%d", d.ID, c.selected.UIDValidity, m.UID)
	cmd := c.c.Fetch(imap.UIDSetNum(m.UID), &imap.FetchOptions{UID: true,
		BodySection: []*imap.FetchItemBodySection{{Peek: true}}})
	err := importBody(ctx, d, cmd, p.Import)
	if cerr := cmd.Close(); err == nil && cerr != nil {
		return fmt.Errorf("FETCH: %w", cerr) // the connection broke: not the mail's fault
	}
	if err == nil || ctx.Err() != nil {
		p.tries.Delete(key)
		return err
	}
	if errors.As(err, new(channel.Permanent)) {
		app.LogFailure(log, "mailbox: mail skipped: the channel cannot take it", err)
		return nil
	}
	n, _ := p.tries.LoadOrStore(key, new(int))
	*n.(*int)++
	if *n.(*int) < maxTries {
		return fmt.Errorf("importing mail %d: %w", m.UID, err)
	}
	p.tries.Delete(key)
	app.LogFailure(log, "mailbox: mail skipped after failed imports", err, "tries", maxTries)
	return nil
}

// importBody hands the body literal of a FETCH to the importer as it arrives.
func importBody(ctx context.Context, d app.Deployment, cmd *imapclient.FetchCommand, imp Importer) error {
	msg := cmd.Next()
	if msg == nil {
		return nil // expunged meanwhile
	}
	for item := msg.Next(); item != nil; item = msg.Next() {
		if body, ok := item.(imapclient.FetchItemDataBodySection); ok && body.Literal != nil {
			return app.Safely(func() error { return imp(ctx, d, body.Literal) })
		}
	}
	return errors.New("the server sent no body")
}

// highestUID is the highest UID the mailbox has given: UIDNEXT - 1, or the highest held.
func highestUID(c *conn, sel *imap.SelectData) (uint32, error) {
	if sel.UIDNext > 0 {
		return uint32(sel.UIDNext) - 1, nil
	}
	all, err := c.c.UIDSearch(&imap.SearchCriteria{}, nil).Wait()
	if err != nil {
		return 0, fmt.Errorf("SEARCH: %w", err)
	}
	var top uint32
	for _, u := range all.AllUIDs() {
		top = max(top, uint32(u))
	}
	return top, nil
}
