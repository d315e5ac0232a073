package app

import "context"

type writeScopeKey struct{}

// WithWriteScope marks the writes made with ctx as made for one organization: they change
// nothing another organization's answers are made of. The API marks every request on a
// route under /orgs/{org} with the organization it resolved, and the store then keeps the
// other organizations' versions (Store.OrgVersion) where they were. A write that is not
// marked (a worker's, a public route's) may change any organization.
func WithWriteScope(ctx context.Context, orgID string) context.Context {
	return context.WithValue(ctx, writeScopeKey{}, orgID)
}

// WriteScope is the organization ctx's writes are made for, if it is marked.
func WriteScope(ctx context.Context) (string, bool) {
	id, ok := ctx.Value(writeScopeKey{}).(string)
	return id, ok && id != ""
}
