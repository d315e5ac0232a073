package api

import (
	"context"
	"net/http"

	"wsapi/app"
)

// Most handlers are one service call between decoding and encoding. The helpers below hold
// those steps once, so that a handler reads as what it calls:
//
//	return rq.OK(s.svc.OrgByDomain(rq.Ctx(), rq.Param("hostname")))
//
// Each takes the service's results as they come (Go passes a call's results on whole), and
// answers only when the error is nil; an error goes back to the one place that maps it.

// OK answers 200 with v, or returns err.
func (rq *Request) OK(v any, err error) error { return rq.reply(http.StatusOK, v, err) }

// Created answers 201 with v, or returns err.
func (rq *Request) Created(v any, err error) error { return rq.reply(http.StatusCreated, v, err) }

// Accepted answers 202 with v (work queued), or returns err.
func (rq *Request) Accepted(v any, err error) error { return rq.reply(http.StatusAccepted, v, err) }

// NoContent answers 204, or returns err.
func (rq *Request) NoContent(err error) error {
	if err != nil {
		return err
	}
	rq.W.WriteHeader(http.StatusNoContent)
	return nil
}

func (rq *Request) reply(status int, v any, err error) error {
	if err != nil {
		return err
	}
	return rq.JSON(status, v)
}

// withBody decodes the JSON body as an In and hands it to do; a body that does not decode
// is answered with its problems and do is not called.
func withBody[In any](rq *Request, do func(In) error) error {
	var in In
	if err := rq.Decode(&in); err != nil {
		return err
	}
	return do(in)
}

// list answers the page that read returns for the request's page and take, with the
// pagination headers. The page's problems are recorded on the request before read runs, so
// that one 400 names them beside the service's own.
func list[T any](rq *Request, read func(app.Page) (app.List[T], error)) error {
	pg, err := rq.Page()
	if err != nil {
		return err
	}
	l, err := read(pg)
	if err != nil {
		return err
	}
	writeList(rq.W, pg, l)
	return nil
}

// The route table serves an organization's plain objects with the service call alone: the
// builders below read that call's arguments from the request the same way for every object
// (the caller's organization, the path's {id}, the page and take, the JSON body) and answer
// its result. A route with more to read, or another status, has a handler method of its own.

// listed answers the page call lists in the caller's organization.
func listed[T any](call func(ctx context.Context, orgID string, pg app.Page) (app.List[T], error)) func(*Request) error {
	return func(rq *Request) error {
		return list(rq, func(pg app.Page) (app.List[T], error) { return call(rq.Ctx(), rq.Org(), pg) })
	}
}

// created answers 201 with what call makes of the body in the caller's organization.
func created[In, T any](call func(ctx context.Context, orgID string, in In) (T, error)) func(*Request) error {
	return func(rq *Request) error {
		return withBody(rq, func(in In) error { return rq.Created(call(rq.Ctx(), rq.Org(), in)) })
	}
}

// byID answers 200 with what call returns for the path's {id} in the caller's organization:
// a read, or an action on the object that answers it (verify, rotate, mark read).
func byID[T any](call func(ctx context.Context, orgID, id string) (T, error)) func(*Request) error {
	return func(rq *Request) error { return rq.OK(call(rq.Ctx(), rq.Org(), rq.Param("id"))) }
}

// updated answers 200 with the object call changes by the body, the path's {id} in the
// caller's organization.
func updated[In, T any](call func(ctx context.Context, orgID, id string, in In) (T, error)) func(*Request) error {
	return func(rq *Request) error {
		return withBody(rq, func(in In) error { return rq.OK(call(rq.Ctx(), rq.Org(), rq.Param("id"), in)) })
	}
}

// createdBy answers 201 with what call makes of the body on the caller's behalf (the
// service checks what the caller may grant).
func createdBy[In, T any](call func(ctx context.Context, c app.Caller, in In) (T, error)) func(*Request) error {
	return func(rq *Request) error {
		return withBody(rq, func(in In) error { return rq.Created(call(rq.Ctx(), rq.Caller, in)) })
	}
}

// updatedBy answers 200 with what call answers for the body on the caller's behalf, on the
// path's {id}: a change of the object, or an event on it.
func updatedBy[In, T any](call func(ctx context.Context, c app.Caller, id string, in In) (T, error)) func(*Request) error {
	return func(rq *Request) error {
		return withBody(rq, func(in In) error { return rq.OK(call(rq.Ctx(), rq.Caller, rq.Param("id"), in)) })
	}
}

// deleted answers 204 once call has removed the path's {id} from the caller's organization.
func deleted(call func(ctx context.Context, orgID, id string) error) func(*Request) error {
	return func(rq *Request) error { return rq.NoContent(call(rq.Ctx(), rq.Org(), rq.Param("id"))) }
}
