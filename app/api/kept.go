package api

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

	"wsapi/app"
	"wsapi/app/vcache"
)

// keptAnswersBytes bounds the answers kept encoded: some 7,000 contacts (about 600 bytes
// each), or some 300 pages of 20.
const keptAnswersBytes = 4 << 20

// keptAnswers keeps GET answers already encoded, under the stamp the domain gives the
// question before reading it (app.Service.ContactStamp, ContactsStamp). A stamp's version is
// its organization's (app.Store.OrgVersion): it changes with every write made for that
// organization and every commit it cannot account for (another process's, a worker's), so an
// answer is served again only while nothing it may be made of has been written since it was
// read: never stale, and a miss costs one map lookup. bench/kept measures it against a
// realistic mix (docs/decisions/kept-answers.md). Reading and encoding were 43% of the CPU of a GET contact; screens ask for the
// same contact or page again and again while nothing changes. A page for a client that takes
// gzip is compressed once and kept so (gzipping a page of 20 contacts was 50 us a request).
type keptAnswers struct {
	answers  *vcache.Cache[string, keptAnswer]
	served   prometheus.Counter // nil: not counted
	compress bool               // ops.compress: a big answer is kept gzipped too, once asked for
}

// keptAnswer is a body (and, once a client that takes gzip asked for it, the body gzipped)
// and, for a page, what its pagination headers say.
type keptAnswer struct {
	body  encodedPage
	total int
	next  string
}

// newKeptAnswers makes the kept answers; nil when they are turned off (http.kept_answers),
// and a nil *keptAnswers keeps nothing.
func newKeptAnswers(on bool, m *Metrics, compress bool) *keptAnswers {
	if !on {
		return nil
	}
	k := &keptAnswers{answers: vcache.New[string, keptAnswer](keptAnswersBytes), compress: compress}
	if m != nil {
		k.served = m.keptAnswers
	}
	return k
}

// get answers what is kept under st, when the question could be stamped.
func (k *keptAnswers) get(st app.Stamp, stamped bool) (keptAnswer, bool) {
	if k == nil || !stamped {
		return keptAnswer{}, false
	}
	a, ok := k.answers.Get(st.Key, st.Version)
	if ok && k.served != nil {
		k.served.Inc()
	}
	return a, ok
}

func (k *keptAnswers) put(st app.Stamp, stamped bool, a keptAnswer) {
	if k != nil && stamped {
		k.answers.Put(st.Key, st.Version, a, len(a.body.json)+len(a.body.gz))
	}
}

// write answers a, gzipped for a client that takes it (writeKeptPage), and keeps a again when
// it is new or its gzipped form was made for this answer.
func (k *keptAnswers) write(rq *Request, st app.Stamp, stamped, held bool, a keptAnswer) {
	if k == nil {
		writeKeptPage(rq.W, rq.R, rq.server.cfg.Ops.Compress, &a.body)
		return
	}
	if grown := writeKeptPage(rq.W, rq.R, k.compress, &a.body); !held || grown {
		k.put(st, stamped, a)
	}
}

// stampedByID answers like byID, from the body kept under the object's stamp when there is
// one, else from call, keeping what it encodes under the stamp taken before the read (so a
// body is never older than its stamp says).
func stampedByID[T any](kept *keptAnswers, stamp func(orgID, id string) (app.Stamp, bool),
	call func(ctx context.Context, orgID, id string) (T, error)) func(*Request) error {
	return func(rq *Request) error {
		var st app.Stamp
		stamped := false
		if kept != nil {
			st, stamped = stamp(rq.Org(), rq.Param("id"))
		}
		if a, ok := kept.get(st, stamped); ok {
			kept.write(rq, st, stamped, true, a)
			return nil
		}
		v, err := call(rq.Ctx(), rq.Org(), rq.Param("id"))
		if err != nil {
			return err
		}
		b, err := app.EncodeJSON(v)
		if err != nil {
			return err
		}
		kept.write(rq, st, stamped, false, keptAnswer{body: encodedPage{json: b}})
		return nil
	}
}

// stampedList answers a page like list, from the answer kept under the page's stamp when
// there is one. A request with problems in its query is never answered from what is kept
// (a bad page reads as page 1): it goes on to the service, which answers the 400.
func stampedList[T any](rq *Request, kept *keptAnswers, stamp func(app.Page) (app.Stamp, bool),
	read func(app.Page) (app.List[T], error)) error {
	pg, err := rq.Page()
	if err != nil {
		return err
	}
	var st app.Stamp
	stamped := false
	if kept != nil && len(rq.problems) == 0 {
		st, stamped = stamp(pg)
	}
	if a, ok := kept.get(st, stamped); ok {
		setListHeaders(rq.W, pg, a.total, a.next)
		kept.write(rq, st, stamped, true, a)
		return nil
	}
	l, err := read(pg)
	if err != nil {
		return err
	}
	items := l.Items
	if items == nil {
		items = []T{}
	}
	b, err := app.EncodeJSON(items)
	if err != nil {
		return err
	}
	setListHeaders(rq.W, pg, l.Total, l.Next)
	kept.write(rq, st, stamped, false, keptAnswer{body: encodedPage{json: b}, total: l.Total, next: l.Next})
	return nil
}
