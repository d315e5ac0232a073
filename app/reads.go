package app

import "context"

// Most reads are one query on a read snapshot. These hold the transaction around it once,
// so that a service method reads as the query it runs.

// readOne runs q on a read snapshot and returns what it read.
func readOne[T any](ctx context.Context, st Store, q func(Tx) (T, error)) (v T, err error) {
	err = st.Read(ctx, func(tx Tx) error {
		v, err = q(tx)
		return err
	})
	return v, err
}

// readPage runs a list query on a read snapshot: one page of items and how many match in all.
func readPage[T any](ctx context.Context, st Store, q func(Tx) ([]T, int, error)) (l List[T], err error) {
	err = st.Read(ctx, func(tx Tx) error {
		l.Items, l.Total, err = q(tx)
		return err
	})
	return l, err
}
