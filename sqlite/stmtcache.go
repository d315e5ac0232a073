package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"

	"modernc.org/sqlite"
)

// stmtCacheSize bounds the statements one connection keeps prepared. The store has a few
// hundred distinct statements; the inbox builds some from its filters, so without a bound a
// long-lived connection would collect every combination.
const stmtCacheSize = 512

// cachingConnector opens modernc connections that keep their prepared statements. SQLite
// spends most of a short query parsing and planning it (39% of the CPU of GET contact was
// sqlite3RunParser); a prepared statement is reset and run again instead. database/sql's own
// *Stmt would do the same, but binding one to a transaction takes the pool's mutex twice per
// call, on the path every request shares.
type cachingConnector struct {
	inner driver.Connector
	begin string // the statement that begins a transaction: BEGIN, or BEGIN IMMEDIATE (writer)
}

func newCachingConnector(dsn, begin string) (driver.Connector, error) {
	c, err := sqlite.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	return cachingConnector{inner: c, begin: begin}, nil
}

func (c cachingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	inner, ok := conn.(sqliteConn)
	if !ok {
		conn.Close()
		return nil, errors.New("sqlite: the driver's connection lacks an interface the store needs")
	}
	return &cachingConn{sqliteConn: inner, stmts: map[string]*cachedStmt{}, begin: c.begin}, nil
}

func (c cachingConnector) Driver() driver.Driver { return c.inner.Driver() }

// sqliteConn is what the store uses of a modernc connection.
type sqliteConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

type stmtRunner interface {
	driver.Stmt
	driver.StmtExecContext
	driver.StmtQueryContext
}

type cachedStmt struct {
	stmt stmtRunner
	// busy: rows of this statement are still open (a loop that queries while it iterates),
	// so the next caller of the same SQL prepares its own.
	busy bool
}

// cachingConn is one connection with its statements. database/sql never uses a connection
// from two goroutines at once (every driver call, Rows.Close included, holds the
// connection's lock), so the map needs no lock of its own.
type cachingConn struct {
	sqliteConn
	stmts map[string]*cachedStmt
	begin string
}

// BeginTx begins with a cached statement, and so do Commit and Rollback: the driver
// prepares its BEGIN and ROLLBACK anew for every transaction (6% of the CPU of GET contact).
func (c *cachingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if opts.ReadOnly || opts.Isolation != driver.IsolationLevel(0) {
		return c.sqliteConn.BeginTx(ctx, opts)
	}
	if _, err := c.ExecContext(ctx, c.begin, nil); err != nil {
		return nil, err
	}
	return cachedTx{c}, nil
}

// cachedTx ends a transaction begun by cachingConn.BeginTx.
type cachedTx struct{ c *cachingConn }

func (t cachedTx) Commit() error {
	_, err := t.c.ExecContext(context.Background(), "COMMIT", nil)
	return err
}

func (t cachedTx) Rollback() error {
	_, err := t.c.ExecContext(context.Background(), "ROLLBACK", nil)
	return err
}

func (c *cachingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	s, err := c.take(ctx, query)
	if errors.Is(err, errNotCacheable) {
		return c.sqliteConn.ExecContext(ctx, query, args)
	}
	if err != nil {
		return nil, err
	}
	res, err := s.stmt.ExecContext(ctx, args)
	s.busy = false
	return res, err
}

func (c *cachingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	s, err := c.take(ctx, query)
	if errors.Is(err, errNotCacheable) {
		return c.sqliteConn.QueryContext(ctx, query, args)
	}
	if err != nil {
		return nil, err
	}
	rows, err := s.stmt.QueryContext(ctx, args)
	if err != nil {
		s.busy = false
		return nil, err
	}
	full, ok := rows.(sqliteRows)
	if !ok {
		rows.Close()
		s.busy = false
		return nil, errors.New("sqlite: the driver's rows lack an interface the store needs")
	}
	return &cachedRows{sqliteRows: full, stmt: s}, nil
}

var errNotCacheable = errors.New("sqlite: statement not cacheable")

// take returns the connection's prepared statement for query, marked busy, or
// errNotCacheable when it is in use or the cache is full of busy statements.
func (c *cachingConn) take(ctx context.Context, query string) (*cachedStmt, error) {
	if s, ok := c.stmts[query]; ok {
		if s.busy {
			return nil, errNotCacheable
		}
		s.busy = true
		return s, nil
	}
	if len(c.stmts) >= stmtCacheSize && !c.evictOne() {
		return nil, errNotCacheable
	}
	ds, err := c.sqliteConn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	runner, ok := ds.(stmtRunner)
	if !ok {
		ds.Close()
		return nil, errNotCacheable
	}
	s := &cachedStmt{stmt: runner, busy: true}
	c.stmts[query] = s
	return s, nil
}

// evictOne finalizes one idle statement (whichever the map yields first: the cache only
// fills with the inbox's filter combinations, where any victim is as good as another).
func (c *cachingConn) evictOne() bool {
	for q, s := range c.stmts {
		if !s.busy {
			s.stmt.Close()
			delete(c.stmts, q)
			return true
		}
	}
	return false
}

func (c *cachingConn) Close() error {
	for q, s := range c.stmts {
		s.stmt.Close()
		delete(c.stmts, q)
	}
	return c.sqliteConn.Close()
}

// sqliteRows is what database/sql may ask of modernc's rows.
type sqliteRows interface {
	driver.Rows
	driver.RowsColumnTypeDatabaseTypeName
	driver.RowsColumnTypeLength
	driver.RowsColumnTypeNullable
	driver.RowsColumnTypePrecisionScale
	driver.RowsColumnTypeScanType
}

// cachedRows frees its statement for the next caller once closed (the driver resets it).
type cachedRows struct {
	sqliteRows
	stmt *cachedStmt
}

func (r *cachedRows) Close() error {
	err := r.sqliteRows.Close()
	r.stmt.busy = false
	return err
}
