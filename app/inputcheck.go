package app

import "context"

// A request's own parameters (a list's page and take, a true/false filter) are read by the
// transport before the service runs, and the service validates the rest. So that one 400
// names every bad field, whichever check comes first, the transport does not stop at its
// own problems: it carries them in the context (WithInputProblems) and calls the service as
// usual. The service validates its fields and returns its problems, which the transport
// joins to its own; when the service finds none, the store refuses to open a transaction for
// a context that carries problems (checkedStore) and answers them instead. Either way a bad
// request reads and writes nothing.

type inputProblemsKey struct{}

// WithInputProblems carries p, which the caller may still add to, in ctx.
func WithInputProblems(ctx context.Context, p Problems) context.Context {
	return context.WithValue(ctx, inputProblemsKey{}, p)
}

// inputProblems is the error of the problems ctx carries, nil when there are none.
func inputProblems(ctx context.Context) error {
	p, _ := ctx.Value(inputProblemsKey{}).(Problems)
	return p.Err()
}

// JoinProblems adds p's fields to err when err is an invalid_argument error (its own reason
// wins for a field both name), answers p's error when err is nil, and err otherwise.
func JoinProblems(err error, p Problems) error {
	if len(p) == 0 {
		return err
	}
	if err == nil {
		return p.Err()
	}
	e, ok := AsError(err)
	if !ok || e.Code != CodeInvalidArgument {
		return err
	}
	all := Problems{}
	for f, why := range e.Fields {
		all.Add(f, why)
	}
	for f, why := range p {
		all.Add(f, why)
	}
	return all.Err()
}

// checkedStore runs no transaction for a context that carries input problems.
type checkedStore struct{ Store }

func (c checkedStore) Read(ctx context.Context, fn func(Tx) error) error {
	if err := inputProblems(ctx); err != nil {
		return err
	}
	return c.Store.Read(ctx, fn)
}

func (c checkedStore) Write(ctx context.Context, fn func(Tx) error) error {
	if err := inputProblems(ctx); err != nil {
		return err
	}
	return c.Store.Write(ctx, fn)
}
