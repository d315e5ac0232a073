package inbound

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"

	"wsapi/app"
	"wsapi/app/channel"
)

// message takes in a contact's message: dropped when its id was seen; its media fetched;
// then the domain's rule adds it, recording the id in the same write, which also takes the
// queued update drop out of the queue when given (done: it did).
func (w *Worker) message(ctx context.Context, d app.Deployment, in channel.Inbound, it channel.Incoming, drop string) (done bool, err error) {
	if it.ExtID != "" {
		seen, err := w.seen(ctx, d.ID, it.ExtID)
		if err != nil || seen {
			return false, err // a duplicate fetches nothing
		}
	}
	files, note, err := w.fetchAll(ctx, d, in, it.Media)
	if err != nil {
		return false, err
	}
	text := it.Text + note
	if text == "" && len(files) == 0 {
		return false, nil
	}
	msg := app.ChannelMessage{Deployment: d, From: it.From, Text: text, Files: files}
	msg.Once = func(tx app.Tx) (bool, error) {
		itx, err := txOf(tx)
		if err != nil {
			return false, err
		}
		if drop != "" {
			if err := itx.DropUpdate(drop); err != nil {
				return false, err
			}
		}
		if it.ExtID == "" {
			return true, nil
		}
		return itx.MarkSeen(d.ID, it.ExtID, w.now())
	}
	_, _, err = w.Service.ChannelMessage(ctx, msg)
	return drop != "" && err == nil, err
}

// seen tells, on a reader, whether a provider's id was taken in before.
func (w *Worker) seen(ctx context.Context, deploymentID, extID string) (bool, error) {
	seen := false
	err := w.Service.Store().Read(ctx, func(tx app.Tx) error {
		itx, err := txOf(tx)
		if err == nil {
			seen, err = itx.Seen(deploymentID, extID)
		}
		return err
	})
	return seen, err
}

// fetchAll downloads every medium. A file over MaxMedia is not kept: the message says so
// (note) rather than failing, as a retry would fail the same way.
func (w *Worker) fetchAll(ctx context.Context, d app.Deployment, in channel.Inbound, media []channel.Media) ([]app.ChannelFile, string, error) {
	if len(media) == 0 {
		return nil, "", nil
	}
	f, ok := in.(channel.MediaFetcher)
	if !ok {
		return nil, "", errUnreadable{fmt.Errorf("inbound: %s reports media but cannot fetch them", d.IntegrationID)}
	}
	var files []app.ChannelFile
	note := ""
	for _, m := range media {
		cf, err := w.fetch(ctx, d, f, m)
		if errors.Is(err, errTooBig) {
			note += "\n[" + cf.Name + ": a file over " + fmt.Sprint(w.MaxMedia>>20) + " MiB, not kept]"
			continue
		}
		if err != nil {
			return nil, "", err
		}
		files = append(files, cf)
	}
	return files, note, nil
}

var errTooBig = errors.New("inbound: the file is too big to keep")

func (w *Worker) fetch(ctx context.Context, d app.Deployment, f channel.MediaFetcher, m channel.Media) (app.ChannelFile, error) {
	name, mimetype, body, err := f.Fetch(ctx, d, m.Ref)
	cf := app.ChannelFile{Name: first(m.Name, path.Base(name), "file"), Mimetype: first(m.Mimetype, mimetype, "application/octet-stream")}
	if err != nil {
		return cf, err
	}
	defer body.Close()
	data, err := io.ReadAll(io.LimitReader(body, w.MaxMedia+1))
	if err != nil {
		return cf, err
	}
	if int64(len(data)) > w.MaxMedia {
		return cf, errTooBig
	}
	cf.Data = data
	return cf, nil
}

// first is the first of names that says something.
func first(names ...string) string {
	for _, n := range names {
		if n != "" && n != "." && n != "/" {
			return n
		}
	}
	return ""
}

// order ranks delivery statuses: a status report never moves a delivery back (a late "sent"
// after "read"); FAILED stands apart and always applies.
var order = []string{app.DeliveryPending, app.DeliverySent, app.DeliveryDelivered, app.DeliveryRead}

// status moves the delivery of the reply the provider names; a reply this server does not
// know (sent elsewhere, or deleted) is ignored.
func (w *Worker) status(ctx context.Context, d app.Deployment, it channel.Incoming) error {
	return w.Service.Store().Write(ctx, func(tx app.Tx) error {
		itx, err := txOf(tx)
		if err != nil {
			return err
		}
		chatID, msgID, err := itx.MessageByExternalID(d.OrgID, it.ExtID)
		if app.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		m, err := tx.GetMessage(d.OrgID, chatID, msgID)
		if err != nil || m.Delivery == nil || !forward(m.Delivery.Status, it.Status) {
			return err
		}
		del := *m.Delivery
		del.Status, del.UpdatedAt, del.Error = it.Status, app.At(w.Service.Clock().Now()), nil
		if it.Error != "" {
			why := it.Error
			del.Error = &why
		}
		return channel.RecordDelivery(w.Service, tx, d.OrgID, chatID, m, del) // a broadcast's recipient flags move with it
	})
}

func forward(from, to string) bool {
	if to == app.DeliveryFailed {
		return from != app.DeliveryFailed
	}
	return slices.Index(order, to) > slices.Index(order, from)
}

// Purge forgets the providers' ids older than SeenRetention (a janitor task); it answers
// how many went.
func (w *Worker) Purge(ctx context.Context) (n int, err error) {
	before := app.At(w.Service.Clock().Now().Add(-SeenRetention))
	err = w.Service.Store().Write(ctx, func(tx app.Tx) error {
		itx, err := txOf(tx)
		if err == nil {
			n, err = itx.PurgeSeen(before)
		}
		return err
	})
	return n, err
}
